// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI

/// `retouch learning show|reset [--json] [--file PATH]`.
enum LearningCommand: Subcommand {
  static let spec = CommandSpec(
    name: "learning",
    abstract: "Show or forget what Retouch learned from your exports.",
    usage: "show|reset [--json] [--file PATH]",
    options: [
      .init(name: "json", value: nil, help: "Print JSON."),
      .init(name: "file", value: "PATH", help: "The learning file (default: see below)."),
    ],
    positionals: 1...1,
    discussion: """
      The learning file holds at most 500 records, one per export after suggestions: the photo's
      analysis summary, the looks offered, the look kept and the slider moves after it. It lives
      at $RETOUCH_LEARNING_FILE if set, else $XDG_DATA_HOME/retouch/learning.json, else
      ~/.local/share/retouch/learning.json (~/Library/Application Support/Retouch on Apple
      systems). 'reset' deletes it.
      """)

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    let store =
      arguments.value("file").map { LearningStore(url: URL(fileURLWithPath: $0)) }
      ?? LearningStore()
    switch arguments.positionals[0] {
    case "show": return show(store, json: arguments.flag("json"))
    case "reset":
      let count = store.learnedEditCount
      do {
        try store.reset()
      } catch {
        throw CLIError(code: .cantCreate, message: error.description)
      }
      if arguments.flag("json") {
        Terminal.out(jsonText(["file": store.url.path, "forgotten": count]))
      } else {
        Terminal.out("Forgot \(count) learned edit\(count == 1 ? "" : "s") (\(store.url.path)).")
      }
      return 0
    case let other:
      throw CLIError.usage("'retouch learning' takes show or reset, got '\(other)'.")
    }
  }

  static func show(_ store: LearningStore, json: Bool) -> Int32 {
    let contents = store.load()
    if let warning = contents.warning { Terminal.error("warning: \(warning)") }
    let records = contents.records
    let size =
      (try? FileManager.default.attributesOfItem(atPath: store.url.path)[.size] as? Int) ?? 0
    // Per look: how often offered and kept, and the mean slider moves after it.
    var offered: [String: Int] = [:], kept: [String: Int] = [:]
    var moves: [String: [String: Double]] = [:]
    var keptNone = 0
    for r in records {
      for look in r.offeredLooks { offered[look, default: 0] += 1 }
      guard let look = r.keptLook else {
        keptNone += 1
        continue
      }
      kept[look, default: 0] += 1
      for (slider, d) in r.sliderDeltas { moves[look, default: [:]][slider, default: 0] += d }
    }
    let looks = Set(offered.keys).union(kept.keys).sorted {
      (kept[$0] ?? 0, $1) > (kept[$1] ?? 0, $0)
    }
    func meanMoves(_ look: String) -> [(String, Double)] {
      let n = Double(kept[look] ?? 0)
      guard n > 0 else { return [] }
      return (moves[look] ?? [:]).map { ($0.key, ($0.value / n * 1000).rounded() / 1000) }
        .filter { $0.1 != 0 }.sorted { $0.0 < $1.0 }
    }
    if json {
      let items: [[String: Any]] = looks.map { look in
        [
          "look": look, "offered": offered[look] ?? 0, "kept": kept[look] ?? 0,
          "meanSliderMoves": Dictionary(uniqueKeysWithValues: meanMoves(look)),
        ]
      }
      Terminal.out(
        jsonText([
          "file": store.url.path, "bytes": size, "count": records.count, "keptNone": keptNone,
          "looks": items,
        ]))
      return 0
    }
    Terminal.out("Learned edits: \(records.count) (at most \(LearningStore.maximumRecords))")
    Terminal.out("File: \(store.url.path) (\(size) bytes)")
    if records.isEmpty { return 0 }
    Terminal.out("Exports without a look: \(keptNone)")
    for look in looks {
      var line = "  \(look): kept \(kept[look] ?? 0) of \(offered[look] ?? 0) offered"
      let m = meanMoves(look)
      if !m.isEmpty {
        line +=
          "; then on average "
          + m.map { "\($0.0) \($0.1 > 0 ? "+" : "")\($0.1)" }.joined(separator: ", ")
      }
      Terminal.out(line)
    }
    return 0
  }

  static func jsonText(_ object: [String: Any]) -> String {
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    else {
      return "{}"
    }
    return String(decoding: data, as: UTF8.self)
  }
}
