// SPDX-License-Identifier: Apache-2.0

// Test helper for the library's crash test: commits to a library in a loop — batches of edits,
// reverts, deletions, restorations and imports — and prints one line per commit *after* it
// returns, so whatever it printed must survive a kill -9 at any moment.
//
// Usage: retouch-library-stress LIBRARY SCRATCH SEED
// Lines: "ready", "edit <revision> <asset> <payload>", "revert <revision> <asset>",
// "delete <asset>", "restore <asset>", "import <asset> <file>".

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchLibrary

struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func solidImage(_ rng: inout SplitMix, size: Int) -> Image {
  var image = Image(width: size, height: size * 3 / 4, format: .rgb8)
  image.fillRect(
    x: 0, y: 0, width: image.width, height: image.height,
    color: (0..<3).map { _ in Int(rng.next() % 256) })
  return image
}

func main() throws {
  let args = CommandLine.arguments
  guard args.count == 4, let seed = UInt64(args[3]) else {
    FileHandle.standardError.write(
      Data("usage: retouch-library-stress LIBRARY SCRATCH SEED\n".utf8))
    exit(64)
  }
  let scratch = URL(fileURLWithPath: args[2], isDirectory: true)
  try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
  var rng = SplitMix(state: seed)
  let library = try PhotoLibrary(at: URL(fileURLWithPath: args[1], isDirectory: true))
  let render = try ImageEncoder().encode(solidImage(&rng, size: 64), as: .jpeg)
  say("ready")
  var step = 0
  while true {
    step += 1
    let all = try library.assets(AssetQuery(deletion: .all))
    let live = all.filter { !$0.isDeleted }
    let roll = rng.next() % 20
    if roll == 0 || live.isEmpty {
      let file = scratch.appendingPathComponent("new-\(seed)-\(step).png")
      try ImageEncoder().encode(solidImage(&rng, size: 40), as: .png).write(to: file)
      for asset in try library.importPhotos(from: [file]).imported {
        say("import \(asset.id) \(file.path)")
      }
    } else if roll == 1 {
      let asset = live[Int(rng.next() % UInt64(live.count))]
      try library.performChanges([.delete(asset.id)])
      say("delete \(asset.id)")
    } else if roll == 2, let asset = all.first(where: \.isDeleted) {
      try library.performChanges([.restore(asset.id)])
      say("restore \(asset.id)")
    } else if roll == 3, let asset = live.first(where: \.isEdited) {
      for revision in try library.performChanges([.revertToOriginal(asset.id)]) {
        say("revert \(revision.id) \(asset.id)")
      }
    } else {
      let count = 1 + Int(rng.next() % 5)
      var requests: [ChangeRequest] = []
      var outputs: [URL] = []
      for k in 0..<count {
        let asset = live[Int(rng.next() % UInt64(live.count))]
        let payload = "s\(seed)-\(step)-\(k)"
        var output = ContentEditingOutput(
          try library.requestContentEditingInput(for: asset.id), directory: scratch)
        try render.write(to: output.renderedContentURL)
        output.adjustmentData = AdjustmentData(
          formatIdentifier: "org.retouch.stress", formatVersion: "1", data: Data(payload.utf8))
        requests.append(.edit(asset.id, output: output))
        outputs.append(output.renderedContentURL)
      }
      let revisions = try library.performChanges(requests)
      for revision in revisions {
        say(
          "edit \(revision.id) \(revision.assetID) \(String(decoding: revision.adjustmentData?.data ?? Data(), as: UTF8.self))"
        )
      }
      for url in outputs { try? FileManager.default.removeItem(at: url) }
    }
  }
}

do {
  try main()
} catch {
  FileHandle.standardError.write(Data("retouch-library-stress: \(error)\n".utf8))
  exit(70)
}
