// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO

/// Command-line options of `retouch-bench`.
struct BenchOptions {
  var runs = 7
  var suites: [String] = []
  var photos: URL
  var workDirectory: URL
  var retouchBinary: String
  var inputs: [String] = []

  struct Input {
    let label: String
    let url: URL
  }

  /// The JPEGs to measure: `--input` files, or by default the manifest's real 12 MP phone-class
  /// JPEG (OLYMPUS E-P3, 4032×3024) and a 24 MP JPEG made once from the 18 MP Canon DSLR photo
  /// (Lanczos-3 upscale to 6000×4000, q92), cached in the work folder.
  func jpegInputs() throws -> [Input] {
    if !inputs.isEmpty {
      return inputs.enumerated().map { Input(label: "input \($0.offset + 1)", url: URL(fileURLWithPath: $0.element)) }
    }
    let twelve = photos.appendingPathComponent("github/ianare__exif-samples/jpg/tests/42_IndexError.jpg")
    let dslr = photos.appendingPathComponent("github/MikeKovarik__exifr/test/fixtures/canon-dslr.jpg")
    let twentyFour = workDirectory.appendingPathComponent("canon-dslr-6000x4000.jpg")
    if !FileManager.default.fileExists(atPath: twentyFour.path) {
      let decoded = try ImageDecoder().decode(dslr)
      let big = decoded.image.resized(to: PixelSize(width: 6000, height: 4000))
      var o = EncodeOptions()
      o.quality = 92
      try ImageEncoder(options: o).write(big, as: .jpeg, metadata: decoded.metadata, to: twentyFour)
    }
    return [Input(label: "12 MP", url: twelve), Input(label: "24 MP", url: twentyFour)]
  }
}

let usage = """
  USAGE: retouch-bench [io] [--runs N] [--input FILE.jpg ...] [--photos DIR]

  Suites: io (codec floor, previews, memory). Peers are installed by scripts/bench-setup.sh.
  Build first: swift build -c release (the bench runs the release 'retouch' beside it).
  """

func parseOptions() -> BenchOptions {
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
  var o = BenchOptions(
    photos: root.deletingLastPathComponent().appendingPathComponent("shared/photos"),
    workDirectory: root.appendingPathComponent(".build/bench-work"),
    retouchBinary: binDir.appendingPathComponent("retouch").path)
  var args = Array(CommandLine.arguments.dropFirst())
  while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--runs": o.runs = Int(args.isEmpty ? "" : args.removeFirst()) ?? o.runs
    case "--input": if !args.isEmpty { o.inputs.append(args.removeFirst()) }
    case "--photos": if !args.isEmpty { o.photos = URL(fileURLWithPath: args.removeFirst()) }
    case "--help", "-h":
      print(usage)
      exit(0)
    default:
      if a.hasPrefix("-") {
        FileHandle.standardError.write(Data("unknown option \(a)\n\(usage)\n".utf8))
        exit(64)
      }
      o.suites.append(a)
    }
  }
  if o.suites.isEmpty { o.suites = ["io"] }
  return o
}

let options = parseOptions()
try? FileManager.default.createDirectory(at: options.workDirectory, withIntermediateDirectories: true)
print("# retouch-bench — \(options.suites.joined(separator: ", ")); \(options.runs) runs, medians")
print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB; "
  + "commit \(gitCommit()); \(ProcessInfo.processInfo.operatingSystemVersionString)")
do {
  for suite in options.suites {
    switch suite {
    case "io": try IOBench.run(options: options)
    default:
      FileHandle.standardError.write(Data("unknown suite \(suite)\n\(usage)\n".utf8))
      exit(64)
    }
  }
} catch {
  FileHandle.standardError.write(Data("retouch-bench: \(error)\n".utf8))
  exit(70)
}

func gitCommit() -> String {
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  guard let head = try? String(contentsOf: root.appendingPathComponent(".git/HEAD"), encoding: .utf8) else { return "?" }
  let t = head.trimmingCharacters(in: .whitespacesAndNewlines)
  if t.hasPrefix("ref: "), let sha = try? String(contentsOf: root.appendingPathComponent(".git/" + t.dropFirst(5)), encoding: .utf8) {
    return String(sha.prefix(10))
  }
  return String(t.prefix(10))
}
