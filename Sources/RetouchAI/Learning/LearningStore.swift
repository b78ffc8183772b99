// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A failure to write the learning file.
public struct LearningStoreError: Error, Sendable, CustomStringConvertible {
  public struct Kind: Hashable, Sendable {
    let label: String
    /// The file or its folder cannot be written.
    public static let unwritable = Kind(label: "unwritable learning file")
  }
  public let kind: Kind
  /// The file name.
  public let source: String
  /// One sentence: what failed and the system's message.
  public let detail: String
  public var description: String { "\(source): \(kind.label): \(detail)" }
}

/// The learning records of this user, in one JSON file in the user's data folder.
///
/// The file (see ``defaultURL(environment:)``) holds at most ``maximumRecords`` records, the
/// newest last (about 300–600 bytes each, so well under 0.5 MB), and is the only file learning
/// writes. Every write goes to a temporary file beside it that is then renamed over it, so a
/// crash leaves the old file or the new one, never half of one. Two processes writing at once
/// do not corrupt it; the later write wins.
///
/// A file that is not a Retouch learning file (corrupt, foreign or from a newer Retouch) is never
/// fatal: it is moved aside to `learning.corrupt-N.json` beside it, a warning says so, and
/// learning starts afresh. Reads never throw.
public struct LearningStore: Sendable {
  /// Records kept at most; older ones are dropped first.
  public static let maximumRecords = 500
  /// The `format` field of the file.
  public static let formatIdentifier = "retouch-learning"
  /// The file version this code writes and reads.
  public static let formatVersion = 1
  /// Files larger than this are not read (set aside as foreign).
  static let maximumFileSize = 4 << 20

  /// The learning file.
  public let url: URL

  /// A store at `url` (created on the first write, with its folder).
  public init(url: URL) { self.url = url }

  /// A store at ``defaultURL(environment:)``.
  public init() { self.init(url: Self.defaultURL()) }

  /// Where learning lives unless told otherwise.
  ///
  /// `RETOUCH_LEARNING_FILE` (a path) wins when set. Otherwise on Linux and other Unix systems
  /// `$XDG_DATA_HOME/retouch/learning.json` when `XDG_DATA_HOME` is an absolute path, else
  /// `~/.local/share/retouch/learning.json` (XDG Base Directory Specification); on Apple systems
  /// `~/Library/Application Support/Retouch/learning.json`.
  public static func defaultURL(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> URL {
    if let path = environment["RETOUCH_LEARNING_FILE"], !path.isEmpty {
      return URL(fileURLWithPath: path)
    }
    #if canImport(Darwin)
      let support =
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
        ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(
          "Library/Application Support")
      return support.appendingPathComponent("Retouch/learning.json")
    #else
      if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
        return URL(fileURLWithPath: xdg).appendingPathComponent("retouch/learning.json")
      }
      let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
      return URL(fileURLWithPath: home).appendingPathComponent(".local/share/retouch/learning.json")
    #endif
  }

  /// The file's contents.
  struct File: Codable {
    var format: String
    var version: Int
    var records: [LearningRecord]
  }

  /// What a read found.
  public struct Contents: Sendable {
    /// The records, oldest first.
    public var records: [LearningRecord]
    /// Set when the file was unreadable and was moved aside (or could not be): one sentence.
    public var warning: String?
  }

  /// The records, oldest first; a missing file is no records. A file that is not a learning
  /// file is moved aside with a warning (see the type's discussion). Never throws.
  public func load() -> Contents {
    let path = url.path
    guard FileManager.default.fileExists(atPath: path) else {
      return Contents(records: [], warning: nil)
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    guard size <= Self.maximumFileSize else {
      return Contents(
        records: [], warning: setAside("it is \(size) bytes, larger than a learning file can be"))
    }
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      // Unreadable (permissions): leave it where it is and learn nothing this time.
      return Contents(
        records: [],
        warning:
          "\(url.lastPathComponent) cannot be read (\(error.localizedDescription)); learning is off until it can."
      )
    }
    let file: File
    do {
      file = try JSONDecoder().decode(File.self, from: data)
    } catch {
      return Contents(records: [], warning: setAside("it is not a Retouch learning file"))
    }
    guard file.format == Self.formatIdentifier, file.version == Self.formatVersion else {
      return Contents(
        records: [],
        warning: setAside(
          "its format is '\(file.format)' version \(file.version), not '\(Self.formatIdentifier)' version \(Self.formatVersion)"
        ))
    }
    return Contents(records: Array(file.records.suffix(Self.maximumRecords)), warning: nil)
  }

  /// Moves the file aside to the first free `learning.corrupt-N.json`; returns the warning.
  private func setAside(_ reason: String) -> String {
    let folder = url.deletingLastPathComponent()
    let stem = url.deletingPathExtension().lastPathComponent
    for n in 1...1000 {
      let target = folder.appendingPathComponent("\(stem).corrupt-\(n).json")
      if FileManager.default.fileExists(atPath: target.path) { continue }
      do {
        try FileManager.default.moveItem(at: url, to: target)
        return
          "\(url.lastPathComponent) was set aside as \(target.lastPathComponent) because \(reason); learning starts afresh."
      } catch {
        break
      }
    }
    return "\(url.lastPathComponent) is ignored because \(reason), and it could not be moved aside."
  }

  /// The number of exports learned from.
  public var learnedEditCount: Int { load().records.count }

  /// Adds `record` as the newest (replacing an earlier record of the same session), keeps the
  /// newest ``maximumRecords``, and writes the file atomically.
  ///
  /// - Returns: the warning of the read, if the old file had to be set aside.
  /// - Throws: ``LearningStoreError`` `.unwritable` when the folder or file cannot be written.
  @discardableResult
  public func record(_ record: LearningRecord) throws(LearningStoreError) -> String? {
    let contents = load()
    var records = contents.records
    if let session = record.sessionID {
      records.removeAll { $0.sessionID == session }
    }
    records.append(record)
    if records.count > Self.maximumRecords {
      records.removeFirst(records.count - Self.maximumRecords)
    }
    try write(records)
    return contents.warning
  }

  /// Forgets everything learned: removes the file (nothing to do when there is none).
  ///
  /// - Throws: ``LearningStoreError`` `.unwritable` when the file exists and cannot be removed.
  public func reset() throws(LearningStoreError) {
    guard FileManager.default.fileExists(atPath: url.path) else { return }
    do {
      try FileManager.default.removeItem(at: url)
    } catch {
      throw LearningStoreError(
        kind: .unwritable, source: url.lastPathComponent,
        detail: "cannot remove it: \(error.localizedDescription).")
    }
  }

  /// The file's JSON for `records` (compact, keys sorted, so equal records give equal bytes).
  static func encoded(_ records: [LearningRecord]) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(
      File(format: formatIdentifier, version: formatVersion, records: records))
  }

  private func write(_ records: [LearningRecord]) throws(LearningStoreError) {
    do {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      // `.atomic` writes a temporary file in the same folder and renames it over the old one.
      try Self.encoded(records).write(to: url, options: .atomic)
    } catch {
      throw LearningStoreError(
        kind: .unwritable, source: url.lastPathComponent,
        detail: "cannot write it: \(error.localizedDescription).")
    }
  }
}
