// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import Synchronization
import Testing

@Suite struct ParallelBandsTests {
  @Test func bandsCoverEveryRowOnce() {
    for (rows, count) in [(1, 4), (7, 3), (100, 8), (5, 9)] {
      let bands = ParallelBands.bandRanges(rows: rows, count: count)
      #expect(bands.first?.lowerBound == 0)
      #expect(bands.last?.upperBound == rows)
      for (a, b) in zip(bands, bands.dropFirst()) { #expect(a.upperBound == b.lowerBound) }
    }
  }

  /// Items of very unequal cost (the first ones slowest, so on two threads later items finish
  /// first) still come back in index order, each computed once.
  @Test func mapKeepsIndexOrderWhateverFinishesFirst() {
    let calls = Mutex([Int](repeating: 0, count: 40))
    let finished = Mutex([Int]())
    let out = ParallelBands.map(count: 40, threads: 2) { i -> String in
      if i < 4 { Thread.sleep(forTimeInterval: 0.01 * Double(4 - i)) }
      calls.withLock { $0[i] += 1 }
      finished.withLock { $0.append(i) }
      return "item \(i)"
    }
    #expect(out == (0..<40).map { "item \($0)" })
    #expect(calls.withLock { $0 } == [Int](repeating: 1, count: 40))
    #expect(finished.withLock { $0.sorted() } == Array(0..<40))
  }

  @Test func mapOnOneThreadOrNoItems() {
    #expect(ParallelBands.map(count: 0) { $0 }.isEmpty)
    #expect(ParallelBands.map(count: 5, threads: 1) { $0 * $0 } == [0, 1, 4, 9, 16])
  }
}
