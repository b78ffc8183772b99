// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Monotonic wall-clock seconds.
func now() -> Double {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

/// Medians and spreads of repeated timings, in milliseconds.
struct Samples {
  var values: [Double] = []
  mutating func add(_ ms: Double) { values.append(ms) }
  var median: Double {
    let s = values.sorted()
    guard !s.isEmpty else { return .nan }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
  }
  var min: Double { values.min() ?? .nan }
  var max: Double { values.max() ?? .nan }
}

/// One timed thing in a round-robin comparison.
struct BenchCase {
  let name: String
  /// Who does the work: "Retouch" or a peer's name.
  let owner: String
  /// Runs once; returns the peak resident memory in bytes when known (child processes) and,
  /// for peers that time themselves (tjbench), the time they report in milliseconds.
  let run: () throws -> (rss: Int?, reportedMS: Double?)
}

/// The measured result of one case.
struct BenchResult {
  let name: String
  let owner: String
  var samples = Samples()
  var peakRSS: Int?
}

/// Runs every case `runs` times, interleaved round-robin in a shuffled (seeded) order each round,
/// so that a noisy neighbour slows every contender alike and the ratios hold.
func roundRobin(_ cases: [BenchCase], runs: Int, warmup: Int = 1, seed: UInt64 = 42) throws
  -> [BenchResult]
{
  var results = cases.map { BenchResult(name: $0.name, owner: $0.owner) }
  var rng = SplitMix(seed: seed)
  for round in 0..<(warmup + runs) {
    var order = Array(cases.indices)
    order.shuffle(using: &rng)
    for i in order {
      let start = now()
      let (rss, reported) = try cases[i].run()
      let ms = reported ?? (now() - start) * 1000
      if round >= warmup {
        results[i].samples.add(ms)
        if let rss { results[i].peakRSS = Swift.max(results[i].peakRSS ?? 0, rss) }
      }
    }
  }
  return results
}

struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Failure to run a peer or our own step.
struct BenchError: Error, CustomStringConvertible {
  let description: String
}

/// Runs a program to completion with stdout/stderr discarded (or stdout to `stdoutPath`) and
/// returns its peak resident set size in bytes.
///
/// The figure comes from `/usr/bin/time -f %M` around the program when that is installed: a
/// child spawned straight from this (large) process would report this process's peak instead,
/// because Linux carries the peak RSS across fork and exec. Without it, returns 0.
@discardableResult
func runProcess(_ argv: [String], stdoutPath: String? = nil, environment: [String: String] = [:])
  throws -> Int
{
  guard access("/usr/bin/time", X_OK) == 0 else {
    _ = try spawnAndWait(argv, stdoutPath: stdoutPath, environment: environment)
    return 0
  }
  let report = FileManager.default.temporaryDirectory.appendingPathComponent(
    "retouch-bench-rss-\(getpid()).txt"
  ).path
  _ = try spawnAndWait(
    ["/usr/bin/time", "-f", "%M", "-o", report] + argv, stdoutPath: stdoutPath,
    environment: environment)
  let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
  let kilobytes =
    text.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.last
    ?? 0
  return kilobytes * 1024
}

/// Spawns, waits, and returns the rusage peak RSS (inflated by this process's own; see above).
func spawnAndWait(_ argv: [String], stdoutPath: String?, environment: [String: String]) throws
  -> Int
{
  var fileActions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&fileActions)
  defer { posix_spawn_file_actions_destroy(&fileActions) }
  posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(
    &fileActions, 1, stdoutPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  posix_spawn_file_actions_addopen(&fileActions, 2, "/dev/null", O_WRONLY, 0)
  var env = ProcessInfo.processInfo.environment
  for (k, v) in environment { env[k] = v }
  let envStrings = env.map { "\($0.key)=\($0.value)" }
  var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
  var cEnv: [UnsafeMutablePointer<CChar>?] = envStrings.map { strdup($0) } + [nil]
  defer {
    for p in cArgs { free(p) }
    for p in cEnv { free(p) }
  }
  var pid: pid_t = 0
  let rc = posix_spawnp(&pid, argv[0], &fileActions, nil, &cArgs, &cEnv)
  guard rc == 0 else {
    throw BenchError(description: "cannot start \(argv[0]): \(String(cString: strerror(rc)))")
  }
  var status: Int32 = 0
  var usage = rusage()
  while wait4(pid, &status, 0, &usage) < 0 {
    if errno != EINTR { throw BenchError(description: "wait4 failed for \(argv[0])") }
  }
  let exited = (status & 0x7f) == 0
  let code = (status >> 8) & 0xff
  guard exited, code == 0 else {
    throw BenchError(description: "\(argv.joined(separator: " ")) failed (status \(status))")
  }
  return Int(usage.ru_maxrss) * 1024
}

/// Whether a program is on PATH.
func which(_ program: String) -> String? {
  for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
  {
    let path = "\(dir)/\(program)"
    if access(path, X_OK) == 0 { return path }
  }
  return nil
}

/// Peak RSS of this process so far, in bytes.
func selfPeakRSS() -> Int {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Int(usage.ru_maxrss) * 1024
}

/// Prints a table of results: median, min, max, and ratio to a reference row.
func printTable(
  _ title: String, _ results: [BenchResult], reference: String? = nil, note: String? = nil
) {
  print("\n## \(title)")
  if let note { print(note) }
  let refMedian = reference.flatMap { r in results.first(where: { $0.name == r })?.samples.median }
  let nameWidth = max(30, results.map { $0.name.count }.max() ?? 0)
  func pad(_ s: String, _ n: Int) -> String {
    s + String(repeating: " ", count: max(0, n - s.count))
  }
  func lpad(_ s: String, _ n: Int) -> String {
    String(repeating: " ", count: max(0, n - s.count)) + s
  }
  print(
    pad("case", nameWidth) + "  " + pad("by", 14) + lpad("median ms", 10) + lpad("min", 9)
      + lpad("max", 9) + lpad("ratio", 8) + lpad("peak RSS", 10))
  for r in results {
    let ratio = refMedian.map { String(format: "%.2f×", r.samples.median / $0) } ?? ""
    let rss = r.peakRSS.map { String(format: "%.0f MB", Double($0) / 1_048_576) } ?? ""
    print(
      pad(r.name, nameWidth) + "  " + pad(r.owner, 14)
        + lpad(String(format: "%.1f", r.samples.median), 10)
        + lpad(String(format: "%.1f", r.samples.min), 9)
        + lpad(String(format: "%.1f", r.samples.max), 9) + lpad(ratio, 8) + lpad(rss, 10))
  }
}
