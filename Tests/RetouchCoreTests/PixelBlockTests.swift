// SPDX-License-Identifier: Apache-2.0

@testable import RetouchCore
import Testing

/// The pool of freed large pixel blocks (`PixelBlock.Recycler`), on its own instance with stand-in
/// addresses (the pool only stores them; nothing is dereferenced or freed here).
@Suite struct PixelBlockRecyclerTests {
  let mib = 1 << 20
  func block(_ i: Int) -> UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: i << 21)! }

  @Test func aKeptBlockIsTakenOnceForItsOwnSize() {
    let pool = PixelBlock.Recycler()
    #expect(pool.keep(block(1), 10 * mib).isEmpty)
    #expect(pool.take(12 * mib) == nil)
    #expect(pool.take(10 * mib) == block(1))
    #expect(pool.take(10 * mib) == nil)
  }

  @Test func theOldestIsFreedWhenMoreBlocksThanTheLimitAreKept() {
    let pool = PixelBlock.Recycler()
    for i in 1...PixelBlock.Recycler.limit { #expect(pool.keep(block(i), 4 * mib).isEmpty) }
    #expect(pool.keep(block(9), 4 * mib) == [block(1)])
    // The newest of a size is taken first.
    #expect(pool.take(4 * mib) == block(9))
  }

  @Test func theByteLimitHoldsWhateverTheSizes() {
    let pool = PixelBlock.Recycler()
    let big = PixelBlock.Recycler.blockLimit
    #expect(
      PixelBlock.Recycler.byteLimit < 3 * big && PixelBlock.Recycler.byteLimit >= 2 * big + 2 * mib)
    #expect(pool.keep(block(1), 2 * mib).isEmpty)
    #expect(pool.keep(block(2), big).isEmpty)
    #expect(pool.keep(block(3), big).isEmpty)
    // Over the byte limit: the oldest go, as many as it takes for the rest to fit.
    #expect(pool.keep(block(4), big) == [block(1), block(2)])
    #expect(pool.take(big) == block(4))
    #expect(pool.take(big) == block(3))
    #expect(pool.take(big) == nil)
  }

  @Test func aBlockOverTheBlockLimitIsNeverKept() {
    let pool = PixelBlock.Recycler()
    let size = PixelBlock.Recycler.blockLimit + 2 * mib
    #expect(pool.keep(block(1), size) == [block(1)])
    #expect(pool.take(size) == nil)
  }

  /// Images freed and made again in a loop reuse blocks: their pixels are the new image's, not
  /// the old one's, when the image asks for zeroed storage.
  @Test func aRecycledBlockStillGivesAZeroedImage() {
    for _ in 0..<3 {
      var image = Image(width: 1200, height: 1200, format: .rgb8)  // 4.3 MB: a large block
      var nonZero = 0
      image.withUnsafeBytes { raw in nonZero = raw.reduce(0) { $0 + ($1 == 0 ? 0 : 1) } }
      #expect(nonZero == 0)
      image.withUnsafeMutableBytes { raw in
        for i in stride(from: 0, to: raw.count, by: 4096) { raw[i] = 255 }
      }
    }
  }
}

/// Blocks over `Recycler.quietLimit` are kept with their pages marked free for the kernel
/// (`MADV_FREE`): what is written into one after it is handed out again must stay.
@Suite struct PixelBlockQuietRecyclingTests {
  @Test func aQuietlyKeptBlockHoldsWhatIsWrittenNext() {
    let size = PixelBlock.Recycler.quietLimit + (6 << 20)
    #expect(size <= PixelBlock.Recycler.blockLimit)
    for round in 0..<3 {
      let block = PixelBlock.allocate(byteCount: size)
      let bytes = block.assumingMemoryBound(to: UInt8.self)
      let salt = UInt8(round * 85 + 1)
      for i in stride(from: 0, to: size, by: 509) { bytes[i] = UInt8(truncatingIfNeeded: i) ^ salt }
      var wrong = 0
      for i in stride(from: 0, to: size, by: 509)
      where bytes[i] != UInt8(truncatingIfNeeded: i) ^ salt {
        wrong += 1
      }
      #expect(wrong == 0, "round \(round): \(wrong) bytes lost")
      PixelBlock.deallocate(block, byteCount: size)
      // Kept, not freed: the pool hands this very block out for the next one of its size (no
      // other test allocates this size).
      let kept = PixelBlock.Recycler.shared.take(PixelBlock.hugeSize(size))
      #expect(kept == block)
      if let kept { PixelBlock.deallocate(kept, byteCount: size) }
    }
  }
}

/// Mapping a block's pages ahead of the thread that fills it (`PixelBlock.populate`,
/// `populateAhead`) must never change what the block holds.
@Suite struct PixelBlockPopulationTests {
  /// A fresh 12 MiB block (huge pages) with a pattern written into part of it, populated
  /// whole: the pattern stays, and the rest reads as zero, as fresh memory does.
  @Test func populatingKeepsWhatIsWritten() {
    let size = 12 << 20
    let block = PixelBlock.allocate(byteCount: size)
    defer { PixelBlock.deallocate(block, byteCount: size) }
    let bytes = block.assumingMemoryBound(to: UInt8.self)
    for i in stride(from: 0, to: size / 2, by: 997) { bytes[i] = UInt8(truncatingIfNeeded: i | 1) }
    #if os(Linux)
      #expect(PixelBlock.populate(block, byteCount: size))
    #else
      PixelBlock.populate(block, byteCount: size)
    #endif
    var wrong = 0
    for i in stride(from: 0, to: size / 2, by: 997)
    where bytes[i] != UInt8(truncatingIfNeeded: i | 1) {
      wrong += 1
    }
    #expect(wrong == 0)
  }

  /// A writer filling the block from the top while the pages are mapped ahead of it on another
  /// thread: every byte is the writer's once both are done.
  @Test func aWriterRacingThePopulationKeepsEveryByte() {
    let size = 24 << 20
    let block = PixelBlock.allocate(byteCount: size)
    defer { PixelBlock.deallocate(block, byteCount: size) }
    let population = PixelBlock.populateAhead(block, byteCount: size)
    let bytes = block.assumingMemoryBound(to: UInt8.self)
    for i in 0..<size { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ 7) }
    population.finish()
    population.finish()  // a second call returns at once
    var wrong = 0
    for i in 0..<size where bytes[i] != UInt8(truncatingIfNeeded: i &* 31 &+ 7) { wrong += 1 }
    #expect(wrong == 0)
  }
}
