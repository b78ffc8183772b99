// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The package's root folder, the one holding `Package.swift` and the README.
public let packageRoot: URL = {
  // This file is <root>/Tests/RetouchTestSupport/Fixtures.swift.
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
}()

/// Locates the real photos shared with the project (`../shared/photos` beside the package root)
/// and reads their MANIFEST.
public enum SharedPhotos {
  /// The folder holding MANIFEST.tsv. `RETOUCH_PHOTOS` overrides the default location.
  public static let directory: URL = {
    if let env = ProcessInfo.processInfo.environment["RETOUCH_PHOTOS"], !env.isEmpty {
      return URL(fileURLWithPath: env, isDirectory: true)
    }
    return packageRoot.deletingLastPathComponent().appendingPathComponent(
      "shared/photos", isDirectory: true)
  }()

  /// One row of MANIFEST.tsv.
  public struct Entry: Sendable, Hashable, CustomStringConvertible {
    public let fields: [String: String]
    public var id: String { fields["id"] ?? "" }
    public var path: String { fields["path"] ?? "" }
    public var url: URL { SharedPhotos.directory.appendingPathComponent(path) }
    public var format: String { fields["format"] ?? "" }
    public var set: String { fields["set"] ?? "" }
    /// `display_size` as (width, height), nil when blank.
    public var displaySize: (width: Int, height: Int)? {
      guard let s = fields["display_size"], case let p = s.split(separator: "x"), p.count == 2,
        let w = Int(p[0]), let h = Int(p[1])
      else { return nil }
      return (w, h)
    }
    public var orientation: Int? { Int(fields["orientation"] ?? "") }
    public var camera: String { fields["camera"] ?? "-" }
    public var iccProfile: String { fields["icc_profile"] ?? "-" }
    public var features: String { fields["features"] ?? "-" }
    public var description: String { "\(id) \(path)" }
  }

  /// Every row of the manifest (empty when the folder is missing, which tests treat as failure).
  public static let manifest: [Entry] = {
    guard
      let text = try? String(
        contentsOf: directory.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
    else { return [] }
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    guard !lines.isEmpty else { return [] }
    let header = lines.removeFirst().split(separator: "\t", omittingEmptySubsequences: false).map(
      String.init)
    return lines.map { line in
      let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      var f: [String: String] = [:]
      for (i, name) in header.enumerated() where i < cols.count { f[name] = cols[i] }
      return Entry(fields: f)
    }
  }()

  /// The manifest row with this id; traps when it is missing (a broken fixture set must fail).
  public static func entry(_ id: String) -> Entry {
    guard let e = manifest.first(where: { $0.id == id }) else {
      preconditionFailure("photo \(id) is not in \(directory.path)/MANIFEST.tsv")
    }
    return e
  }

  /// The URL of a photo by manifest id.
  public static func url(_ id: String) -> URL { entry(id).url }

  /// The bytes of a photo by manifest id.
  public static func data(_ id: String) throws -> Data { try Data(contentsOf: url(id)) }
}

/// A small deterministic random generator (SplitMix64) for seeded tests.
public struct SeededRandom: RandomNumberGenerator, Sendable {
  public private(set) var state: UInt64
  public let seed: UInt64
  public init(seed: UInt64) {
    self.seed = seed
    state = seed
  }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
