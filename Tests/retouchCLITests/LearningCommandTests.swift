// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchTestSupport
import Testing

@Suite("retouch learning")
struct LearningCommandTests {
  /// Three exports: Vivid kept twice with saturation lowered, once nothing kept.
  static let file = """
    {"format":"retouch-learning","version":1,"records":[
    {"photo":{"lum":55,"con":20,"warm":0.1,"tint":0,"chroma":24,"faces":0,"scene":"nature"},
     "offered":["vivid","matte"],"kept":"vivid","deltas":{"saturation":-0.2}},
    {"photo":{"lum":57,"con":21,"warm":0.1,"tint":0,"chroma":25,"faces":0,"scene":"nature"},
     "offered":["vivid","matte"],"kept":"vivid","deltas":{"saturation":-0.3}},
    {"photo":{"lum":40,"con":15,"warm":0.2,"tint":0,"chroma":20,"faces":1},
     "offered":["brighten","vivid"],"deltas":{}}]}
    """

  /// A data folder holding the learning file, and the environment that points at it.
  static func dataHome(with contents: String? = file) throws -> (URL, [String: String]) {
    let home = try CLIRunner.temporaryDirectory()
    let file = home.appendingPathComponent("retouch/learning.json")
    if let contents {
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(contents.utf8).write(to: file)
    }
    return (file, ["XDG_DATA_HOME": home.path, "RETOUCH_LEARNING_FILE": ""])
  }

  @Test func showSummarisesEachLookFromTheUsersDataFolder() throws {
    let (file, env) = try Self.dataHome()
    let r = try CLIRunner.run(["learning", "show"], environment: env)
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(r.stdout.contains("Learned edits: 3"))
    #expect(r.stdout.contains(file.path))
    #expect(r.stdout.contains("vivid: kept 2 of 3 offered; then on average saturation -0.25"))
    #expect(r.stdout.contains("Exports without a look: 1"))
  }

  @Test func showJSONAndResetForget() throws {
    let (file, env) = try Self.dataHome()
    let r = try CLIRunner.run(["learning", "show", "--json"], environment: env)
    #expect(r.exitCode == 0, "\(r.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    #expect(object["count"] as? Int == 3)
    #expect(object["file"] as? String == file.path)
    #expect((object["bytes"] as? Int ?? 0) > 100)
    let looks = try #require(object["looks"] as? [[String: Any]])
    #expect(looks.first?["look"] as? String == "vivid")
    #expect(looks.first?["kept"] as? Int == 2)

    let reset = try CLIRunner.run(["learning", "reset"], environment: env)
    #expect(reset.exitCode == 0, "\(reset.stderr)")
    #expect(reset.stdout.contains("Forgot 3 learned edits"))
    #expect(!FileManager.default.fileExists(atPath: file.path))
    let after = try CLIRunner.run(["learning", "show", "--json", "--file", file.path])
    let empty = try #require(
      try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
    #expect(empty["count"] as? Int == 0)
  }

  @Test func aCorruptFileIsSetAsideWithAWarning() throws {
    let (file, env) = try Self.dataHome(with: "{ not json")
    let r = try CLIRunner.run(["learning", "show"], environment: env)
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(r.stderr.contains("warning: learning.json was set aside as learning.corrupt-1.json"))
    #expect(r.stdout.contains("Learned edits: 0"))
    #expect(
      FileManager.default.fileExists(
        atPath: file.deletingLastPathComponent().appendingPathComponent("learning.corrupt-1.json")
          .path))
  }

  @Test func anUnknownActionIsAUsageError() throws {
    let r = try CLIRunner.run(["learning", "forget"])
    #expect(r.exitCode == 64)
    #expect(r.stderr.hasPrefix("retouch learning: "))
  }
}
