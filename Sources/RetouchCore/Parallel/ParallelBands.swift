// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// Splits row ranges into bands and runs them on all cores.
public enum ParallelBands {
  /// The number of worker threads to use by default: the active processor count.
  public static var defaultThreadCount: Int { max(1, activeProcessorCount()) }

  /// Calls `body` once per band of rows, concurrently, and returns when all bands are done.
  ///
  /// Bands are contiguous, cover `0..<rows` exactly once and hold at least `minimumBandHeight`
  /// rows (except when there are fewer rows). With `threads == 1`, or a single band, runs on the
  /// calling thread. There are `threads × 4` bands at most, to balance uneven rows.
  public static func forEach(
    rows: Int, minimumBandHeight: Int = 16, threads: Int? = nil,
    _ body: @Sendable (Range<Int>) -> Void
  ) {
    guard rows > 0 else { return }
    let threadCount = max(1, threads ?? defaultThreadCount)
    let maxBands = max(1, rows / max(1, minimumBandHeight))
    let bandCount = min(maxBands, threadCount == 1 ? 1 : threadCount * 4)
    if bandCount == 1 {
      body(0..<rows)
      return
    }
    let bands = bandRanges(rows: rows, count: bandCount)
    DispatchQueue.concurrentPerform(iterations: bands.count) { i in body(bands[i]) }
  }

  /// `transform(i)` for every `i` in `0..<count`, computed on all cores (each index taken by the
  /// next free thread, so unequal costs balance), returned in index order: the result does not
  /// depend on the timing. With `threads == 1` (or a one-core machine when `threads` is nil) or
  /// a single item, runs on the calling thread, in order.
  public static func map<T: Sendable>(
    count: Int, threads: Int? = nil, _ transform: @Sendable (Int) -> T
  ) -> [T] {
    guard count > 0 else { return [] }
    if count == 1 || max(1, threads ?? defaultThreadCount) == 1 {
      return (0..<count).map(transform)
    }
    var slots = [T?](repeating: nil, count: count)
    slots.withUnsafeMutableBufferPointer { buffer in
      let base = SendableRawPointer(UnsafeMutableRawPointer(buffer.baseAddress!))
      DispatchQueue.concurrentPerform(iterations: count) { i in
        // Each index writes only its own slot.
        (base.pointer.assumingMemoryBound(to: T?.self) + i).pointee = transform(i)
      }
    }
    return slots.map { $0! }
  }

  /// `count` near-equal contiguous ranges covering `0..<rows`.
  public static func bandRanges(rows: Int, count: Int) -> [Range<Int>] {
    let n = max(1, min(count, rows))
    return (0..<n).map { i in (rows * i / n)..<(rows * (i + 1) / n) }
  }
}

/// A raw pointer that may cross into `@Sendable` band closures.
///
/// Invariant: every closure that receives it writes only the rows of its own band, so no two
/// threads touch the same bytes; the pointee outlives the parallel loop that uses it.
public struct SendableRawPointer: @unchecked Sendable {
  public let pointer: UnsafeMutableRawPointer
  public init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
  public init(_ pointer: UnsafeRawPointer) {
    self.pointer = UnsafeMutableRawPointer(mutating: pointer)
  }
}

import Foundation

private func activeProcessorCount() -> Int { ProcessInfo.processInfo.activeProcessorCount }
