// SPDX-License-Identifier: Apache-2.0

/// Owns one 64-byte-aligned heap block of pixel bytes.
///
/// Invariant that makes `@unchecked Sendable` sound: the block is written only through
/// ``Image``'s mutating accessors, which first make the storage unique
/// (`isKnownUniquelyReferenced`), so no two values ever observe a write to a shared block.
/// Readers of a shared block only read.
final class ImageStorage: @unchecked Sendable {
  let pointer: UnsafeMutableRawPointer
  let byteCount: Int

  init(byteCount: Int, zeroed: Bool) {
    self.byteCount = byteCount
    pointer = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: 64)
    if zeroed { pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1)) }
  }

  func copy() -> ImageStorage {
    let new = ImageStorage(byteCount: byteCount, zeroed: false)
    new.pointer.copyMemory(from: pointer, byteCount: byteCount)
    return new
  }

  deinit { pointer.deallocate() }
}
