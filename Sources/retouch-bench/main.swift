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
  /// `render`: also run the peer chain script (slow: installs its tools the first time, then
  /// about a minute per 5 runs).
  var peers = false
  /// `render --peers`: the peer chain script (`../shared/bench/peers.sh` beside the package).
  var peersScript: URL
  /// `render --peers`: which peer commands to time (a regex over peers.sh's command names).
  var peersOnly = "OpenCV|pyvips.*chain|Pillow|djpeg \\| cjpeg"
  /// `ai --only`: time only the cases whose names match this regex (a profile or an A/B run of
  /// one case without the 12 MP cases around it).
  var only: String?

  struct Input {
    let label: String
    let url: URL
  }

  /// The JPEGs to measure: `--input` files, or by default the manifest's real 12 MP phone-class
  /// JPEG (OLYMPUS E-P3, 4032×3024) and a 24 MP JPEG made once from the 18 MP Canon DSLR photo
  /// (Lanczos-3 upscale to 6000×4000, q92), cached in the work folder.
  func jpegInputs() throws -> [Input] {
    if !inputs.isEmpty {
      return inputs.enumerated().map {
        Input(label: "input \($0.offset + 1)", url: URL(fileURLWithPath: $0.element))
      }
    }
    let twelve = twelveMegapixelJPEG
    let dslr = photos.appendingPathComponent(
      "github/MikeKovarik__exifr/test/fixtures/canon-dslr.jpg")
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

  /// The manifest's real 12 MP phone-class JPEG (OLYMPUS E-P3, 4032×3024).
  var twelveMegapixelJPEG: URL {
    photos.appendingPathComponent("github/ianare__exif-samples/jpg/tests/42_IndexError.jpg")
  }

  /// A portrait of the shared photos (one face, about a fifth of the frame), for the suggestion
  /// engine's faces path.
  var portrait: URL {
    photos.appendingPathComponent("github/photoprism__photoprism/internal/ai/face/testdata/1.jpg")
  }
}

let usage = """
  USAGE: retouch-bench [io] [render] [preview] [ai] [editor] [library] [--runs N] [--input FILE.jpg ...] [--photos DIR]
                       [--peers] [--peers-only REGEX] [--only REGEX]

  Suites:
    io      codec floor, previews, memory; WebP and TIFF. Peers: scripts/bench-setup.sh.
    render  a typical edit on a 12 MP JPEG file → edit → JPEG q90 (in process and
            'retouch apply') against the libjpeg-turbo floor; re-rendering a 2048×1536
            preview after a slider move, per stage; a C reference of the fused colour
            pass; peak memory. Input: the first --input, else the 12 MP photo.
            --peers also runs ../shared/bench/peers.sh (OpenCV, libvips, Pillow doing the
            same chain, their own round robin, RUNS = --runs) and prints its medians
            beside ours. Off by default: the first run installs its tools, and each run
            takes a few minutes. --peers-only picks its commands (default:
            'OpenCV|pyvips.*chain|Pillow|djpeg \\| cjpeg'). As root, --peers runs the
            bench at nice -10 in a session of its own, as peers.sh runs its commands.
    preview only render's preview section (a slider move on a 2048×1536 preview, its
            stages and the C reference), in seconds.
    editor  an editing session on the 12 MP photo: prepare to the first 2048-px
            preview, a committed slider change to its new preview, undo/redo, and the
            full-resolution export against 'retouch apply' with the same edit.
    library  import of 1,000 small photos made from the samples (headers only, no
            thumbnails), listing 10,000 assets by date, a batch commit of 100 edits.
    ai      the suggestion engine after prewarm: suggestions with thumbnails on the 12 MP
            photo (goal ≤ 150 ms) and topSuggestion on a 512 px copy (goal ≤ 15 ms) and
            on a 512 px copy of a one-face portrait of the shared photos (the faces' path),
            plus its stages. Input: the first --input, else the 12 MP photo. --only times
            just the cases whose names match REGEX (e.g. --only topSuggestion).
  Build first: swift build -c release (the bench runs the release 'retouch' beside it).
  """

func parseOptions() -> BenchOptions {
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    .deletingLastPathComponent()
  var o = BenchOptions(
    photos: root.deletingLastPathComponent().appendingPathComponent("shared/photos"),
    workDirectory: root.appendingPathComponent(".build/bench-work"),
    retouchBinary: binDir.appendingPathComponent("retouch").path,
    peersScript: root.deletingLastPathComponent().appendingPathComponent("shared/bench/peers.sh"))
  var args = Array(CommandLine.arguments.dropFirst())
  while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--runs": o.runs = Int(args.isEmpty ? "" : args.removeFirst()) ?? o.runs
    case "--input": if !args.isEmpty { o.inputs.append(args.removeFirst()) }
    case "--photos": if !args.isEmpty { o.photos = URL(fileURLWithPath: args.removeFirst()) }
    case "--peers": o.peers = true
    case "--peers-only": if !args.isEmpty { o.peersOnly = args.removeFirst() }
    case "--only": if !args.isEmpty { o.only = args.removeFirst() }
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
let priorityNote = raisePriorityForPeers(options)
try? FileManager.default.createDirectory(
  at: options.workDirectory, withIntermediateDirectories: true)
print("# retouch-bench — \(options.suites.joined(separator: ", ")); \(options.runs) runs, medians")
print(
  "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB; "
    + "commit \(gitCommit()); \(ProcessInfo.processInfo.operatingSystemVersionString); \(toolchain())"
)
if let priorityNote { print(priorityNote) }
do {
  for suite in options.suites {
    switch suite {
    case "io": try IOBench.run(options: options)
    case "render": try RenderBench.run(options: options)
    case "preview": try RenderBench.runPreview(options: options)
    case "ai": try AIBench.run(options: options)
    case "editor": try EditorBench.run(options: options)
    case "library": try LibraryBench.run(options: options)
    default:
      FileHandle.standardError.write(Data("unknown suite \(suite)\n\(usage)\n".utf8))
      exit(64)
    }
  }
} catch {
  FileHandle.standardError.write(Data("retouch-bench: \(error)\n".utf8))
  exit(70)
}

/// With `--peers` as root, runs the bench as peers.sh runs its timed commands, so the two round
/// robins compete alike with other tenants: nice −10, in a session of its own whose scheduler
/// autogroup also gets nice −10 (with autogroups, nice alone only ranks tasks within one
/// session).
/// Re-executes itself under `setsid -w` once; returns a line for the header, or nil when unchanged.
func raisePriorityForPeers(_ options: BenchOptions) -> String? {
  guard options.peers, getuid() == 0 else { return nil }
  let marker = "RETOUCH_BENCH_OWN_SESSION"
  if ProcessInfo.processInfo.environment[marker] == nil, access("/usr/bin/setsid", X_OK) == 0,
    access("/proc/self/autogroup", W_OK) == 0
  {
    setenv(marker, "1", 1)
    let me =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    let argv = ["/usr/bin/setsid", "-w", me] + CommandLine.arguments.dropFirst()
    var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    execv("/usr/bin/setsid", &cArgs)
    for p in cArgs { free(p) }  // exec failed: carry on at normal priority
    return "priority: normal (could not re-run under setsid)"
  }
  var notes: [String] = []
  if ProcessInfo.processInfo.environment[marker] != nil,
    (try? "-10".write(toFile: "/proc/self/autogroup", atomically: false, encoding: .utf8)) != nil
  {
    notes.append("own session, autogroup nice -10")
  }
  if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, -10) == 0 {
    notes.append("nice -10")
  }
  let what = notes.isEmpty ? "normal" : notes.joined(separator: ", ")
  return "priority: \(what) (as peers.sh runs its commands)"
}

/// The checked-out commit, read from the package's `.git` (a folder, or in a worktree a file
/// naming the worktree's git folder, whose refs live in the shared "common" folder).
/// The installed Swift toolchain's version line (the one `swift build` used), or "swift ?".
func toolchain() -> String {
  let out = options.workDirectory.appendingPathComponent("swift-version.txt").path
  guard (try? spawnAndWait(["swift", "--version"], stdoutPath: out, environment: [:])) != nil,
    let text = try? String(contentsOfFile: out, encoding: .utf8),
    let line = text.split(separator: "\n").first(where: { $0.contains("Swift version") })
  else { return "swift ?" }
  return line.trimmingCharacters(in: .whitespaces)
}

func gitCommit() -> String {
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  var gitDir = root.appendingPathComponent(".git")
  if let link = try? String(contentsOf: gitDir, encoding: .utf8), link.hasPrefix("gitdir: ") {
    let path = link.dropFirst(8).trimmingCharacters(in: .whitespacesAndNewlines)
    gitDir = path.hasPrefix("/") ? URL(fileURLWithPath: path) : root.appendingPathComponent(path)
  }
  var commonDir = gitDir
  func read(_ dir: URL, _ name: String) -> String? {
    try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
  }
  if let common = read(gitDir, "commondir") {
    let path = common.trimmingCharacters(in: .whitespacesAndNewlines)
    commonDir =
      path.hasPrefix("/") ? URL(fileURLWithPath: path) : gitDir.appendingPathComponent(path)
  }
  guard let head = read(gitDir, "HEAD") else { return "?" }
  let t = head.trimmingCharacters(in: .whitespacesAndNewlines)
  guard t.hasPrefix("ref: ") else { return String(t.prefix(10)) }
  let ref = String(t.dropFirst(5))
  for dir in [gitDir, commonDir] {
    if let sha = read(dir, ref) {
      return String(sha.prefix(10))
    }
  }
  let packed = read(commonDir, "packed-refs") ?? ""
  for line in packed.split(separator: "\n") where line.hasSuffix(" " + ref) {
    return String(line.prefix(10))
  }
  return "?"
}
