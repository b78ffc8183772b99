// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Synchronization

/// The source of ``ImageStorage/serial``.
let imageStorageSerials = Atomic<UInt64>(0)

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Owns one aligned heap block of pixel bytes.
///
/// Invariant that makes `@unchecked Sendable` sound: the block is written only through
/// ``Image``'s mutating accessors, which first make the storage unique
/// (`isKnownUniquelyReferenced`), so no two values ever observe a write to a shared block.
/// Readers of a shared block only read.
final class ImageStorage: @unchecked Sendable {
  let pointer: UnsafeMutableRawPointer
  let byteCount: Int
  /// Unique per block ever allocated in this process (addresses are reused; serials are not).
  let serial: UInt64 = imageStorageSerials.add(1, ordering: .relaxed).newValue
  /// Bumped by every mutable access (which first makes the block unique), so `(serial, version)`
  /// names the block's current contents: caches of values derived from pixels key on it.
  var version: UInt64 = 0

  /// Blocks at least this large are aligned to 2 MiB and, on Linux, marked for transparent huge
  /// pages: the first write into a fresh 36 MB image (a 12 MP decode) took ~18 ms of page faults
  /// with 4 KiB pages and ~6 ms with huge pages (2-core Xeon build machine, JPEG decode of a
  /// 4032×3024 photo).
  static let hugeThreshold = 4 << 20
  static let hugeAlignment = 2 << 20

  init(byteCount: Int, zeroed: Bool) {
    self.byteCount = byteCount
    let size = max(byteCount, 1)
    pointer = PixelBlock.allocate(byteCount: size)
    if zeroed { pointer.initializeMemory(as: UInt8.self, repeating: 0, count: size) }
  }

  func copy() -> ImageStorage {
    let new = ImageStorage(byteCount: byteCount, zeroed: false)
    new.pointer.copyMemory(from: pointer, byteCount: byteCount)
    return new
  }

  deinit { PixelBlock.deallocate(pointer, byteCount: max(byteCount, 1)) }
}

/// Allocation of large pixel buffers (images, a JPEG pipeline's rows): uninitialised, 64-byte
/// aligned, and from ``ImageStorage/hugeThreshold`` up aligned to 2 MiB and marked for
/// transparent huge pages on Linux, so that the first write into them is not one page fault
/// per 4 KiB. Pair every `allocate` with a `deallocate` of the same size.
///
/// Huge pages are a gain while memory is warm and a loss for a process started after the
/// machine was idle, on a VM that hands freed 2 MiB blocks back to its host: a 12 MP
/// `retouch apply` (typical edit, alternating runs) took 145.1 ms with them against 149.6 with
/// 4 KiB pages back to back, but 188.2 against 177.0 one second after the previous run and
/// 186.4 against 169.9 after 2.5 s. Kept, because servers and batches run warm and reuse blocks.
///
/// Large blocks that are freed are kept for reuse (``Recycler``): an editor re-rendering its
/// preview allocates a new image of the same size for every slider move, and a fresh block
/// costs the kernel's zeroing of each page on its first write (`perf` on the preview bench,
/// 2048 × 1536: 5 % of all samples were that zeroing, inside the fused colour pass, against
/// 45 % for the pass itself).
package enum PixelBlock {
  package static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
    let size = max(byteCount, 1)
    guard size >= ImageStorage.hugeThreshold else {
      return UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
    }
    let rounded = hugeSize(size)
    if let kept = Recycler.shared.take(rounded) { return kept }
    var raw: UnsafeMutableRawPointer?
    guard posix_memalign(&raw, ImageStorage.hugeAlignment, rounded) == 0, let block = raw else {
      fatalError("out of memory allocating \(size) bytes of pixels")
    }
    #if os(Linux)
      _ = madvise(block, rounded, MADV_HUGEPAGE)
    #endif
    return block
  }

  package static func deallocate(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
    let size = max(byteCount, 1)
    guard size >= ImageStorage.hugeThreshold else {
      pointer.deallocate()
      return
    }
    let rounded = hugeSize(size)
    #if os(Linux)
      if rounded > Recycler.quietLimit && rounded <= Recycler.blockLimit {
        _ = madvise(pointer, rounded, MADV_FREE)
      }
    #endif
    for block in Recycler.shared.keep(pointer, rounded) { free(block) }
  }

  /// Maps the pages of `byteCount` bytes at `pointer` (inside a block from ``allocate(byteCount:)``)
  /// writable without changing their contents, so the thread that writes them next does not
  /// stop for the kernel's zeroing of each fresh page. Safe while other threads read or write
  /// the same bytes. Returns false where the system cannot (not Linux, or a kernel older than
  /// 5.14); the pages then fault in on their first write as usual.
  @discardableResult
  package static func populate(_ pointer: UnsafeMutableRawPointer, byteCount: Int) -> Bool {
    #if os(Linux)
      // MADV_POPULATE_WRITE (Linux 5.14); the Glibc module does not export the macro.
      let populateWrite: Int32 = 23
      let page = 4096
      let start = Int(bitPattern: pointer) & ~(page - 1)
      let end = Int(bitPattern: pointer) + byteCount
      guard byteCount > 0, let first = UnsafeMutableRawPointer(bitPattern: start) else {
        return false
      }
      return madvise(first, end - start, populateWrite) == 0
    #else
      return false
    #endif
  }

  /// Maps `base[offset..<byteCount]` (see ``populate(_:byteCount:)``) one huge page at a time,
  /// first page first, for as long as `proceed()` holds, and returns how far it got: `byteCount`
  /// when all is mapped, or when mapping cannot work here (nothing more to try).
  package static func populate(
    _ base: UnsafeMutableRawPointer, byteCount: Int, from offset: Int, while proceed: () -> Bool
  ) -> Int {
    var offset = offset
    while offset < byteCount, proceed() {
      let n = Swift.min(ImageStorage.hugeAlignment, byteCount - offset)
      guard populate(base + offset, byteCount: n) else { return byteCount }
      offset += n
    }
    return offset
  }

  /// Starts mapping the pages of `byteCount` bytes at `pointer` on another thread, first page
  /// first, for a single-threaded producer (a decoder) that is about to fill them from the top:
  /// the kernel's zeroing of fresh pages then runs on an idle core instead of stopping the
  /// producer at every page it reaches first. Call ``Population/finish()`` before the block can
  /// be freed. Nothing is started for blocks under ``ImageStorage/hugeThreshold``, or where
  /// ``populate(_:byteCount:)`` cannot work.
  package static func populateAhead(_ pointer: UnsafeMutableRawPointer, byteCount: Int)
    -> Population
  {
    Population(pointer, byteCount: byteCount)
  }

  /// A running ``populateAhead(_:byteCount:)``.
  package final class Population: Sendable {
    /// `idle` until the worker starts; `running` while it maps; `stopped` once the worker is
    /// told to stop (or is done); `cancelled` when it was told to stop before it started.
    private enum Phase: UInt8 { case idle, running, stopped, cancelled }
    private let phase = Atomic<UInt8>(Phase.idle.rawValue)
    private let done = DispatchSemaphore(value: 0)
    private let started: Bool

    fileprivate init(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
      #if os(Linux)
        started = byteCount >= ImageStorage.hugeThreshold
      #else
        started = false
      #endif
      guard started else { return }
      let address = UInt(bitPattern: pointer)
      DispatchQueue.global(qos: .userInitiated).async { [self] in
        // A worker that only gets a thread after `finish` never touches the block.
        guard transition(from: .idle, to: .running) else { return }
        defer { done.signal() }
        guard let base = UnsafeMutableRawPointer(bitPattern: address) else { return }
        _ = PixelBlock.populate(base, byteCount: byteCount, from: 0) {
          phase.load(ordering: .acquiring) == Phase.running.rawValue
        }
      }
    }

    private func transition(from: Phase, to: Phase) -> Bool {
      phase.compareExchange(
        expected: from.rawValue, desired: to.rawValue, ordering: .acquiringAndReleasing
      ).exchanged
    }

    /// Stops the worker at its next chunk and waits until it no longer touches the block. When
    /// the worker has not started yet (no free thread), it is cancelled and this returns at
    /// once instead of waiting for a thread. Later calls return at once.
    package func finish() {
      guard started, !transition(from: .idle, to: .cancelled),
        transition(from: .running, to: .stopped)
      else { return }
      done.wait()
    }
  }

  /// A large block's size: `size` rounded up to whole huge pages.
  static func hugeSize(_ size: Int) -> Int {
    let alignment = ImageStorage.hugeAlignment
    return (size + alignment - 1) / alignment * alignment
  }

  /// Freed large blocks kept for the next allocation of the same rounded size: at most
  /// ``limit`` blocks and ``byteLimit`` bytes, the oldest freed first when full. Blocks over
  /// ``blockLimit`` (a 24 MP image and up) are never kept.
  ///
  /// A process that edits one full-size photo after another (a server, a batch export, the
  /// in-memory decode → render → encode chain) allocates the same 36 MB blocks for every 12 MP
  /// photo: when they were not kept, the kernel zeroed 72 MB of fresh pages per photo (12 % of
  /// the chain's samples in `perf`). Blocks over ``quietLimit`` are kept with `MADV_FREE`
  /// (Linux), so the kernel may take their pages back under memory pressure instead of the pool
  /// pinning them; a block whose pages were taken is zero-filled again on its next use, as a
  /// fresh one would be.
  final class Recycler: Sendable {
    static let shared = Recycler()
    static let limit = 4
    static let byteLimit = 160 << 20
    static let blockLimit = 64 << 20
    /// Kept blocks above this size are marked free for the kernel to reclaim.
    static let quietLimit = 24 << 20
    /// Addresses (as integers, which are `Sendable`) and sizes, oldest first.
    private let blocks = Mutex<[(address: UInt, size: Int)]>([])

    /// A kept block of exactly `size` bytes, or nil.
    func take(_ size: Int) -> UnsafeMutableRawPointer? {
      return blocks.withLock { kept -> UInt? in
        guard let i = kept.lastIndex(where: { $0.size == size }) else { return nil }
        return kept.remove(at: i).address
      }.flatMap { UnsafeMutableRawPointer(bitPattern: $0) }
    }

    /// Keeps `pointer` (of `size` bytes); returns the blocks to free instead: the oldest kept
    /// ones while the pool is over its limits, or `pointer` itself when it is too large.
    func keep(_ pointer: UnsafeMutableRawPointer, _ size: Int) -> [UnsafeMutableRawPointer] {
      guard size <= Self.blockLimit else { return [pointer] }
      let evicted = blocks.withLock { kept in
        kept.append((UInt(bitPattern: pointer), size))
        var total = kept.reduce(0) { $0 + $1.size }
        var evicted: [UInt] = []
        while kept.count > Self.limit || total > Self.byteLimit {
          let oldest = kept.removeFirst()
          total -= oldest.size
          evicted.append(oldest.address)
        }
        return evicted
      }
      return evicted.compactMap { UnsafeMutableRawPointer(bitPattern: $0) }
    }
  }
}
