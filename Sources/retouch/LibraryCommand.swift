// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchLibrary
import RetouchRender

/// `retouch library init|import|list|show|edit|auto|revert|delete|restore|export|check
/// --library DIR`: a photo library on this machine.
enum LibraryCommand: Subcommand {
  static let actions = [
    "init", "import", "list", "show", "edit", "auto", "revert", "delete", "restore", "export",
    "check",
  ]

  static let spec = CommandSpec(
    name: "library",
    abstract: "Keep photos in a library: originals never modified, edits stored and revertible.",
    usage:
      "init|import|list|show|edit|auto|revert|delete|restore|export|check [ARGS] --library DIR [options]",
    options: [
      .init(name: "library", value: "DIR", help: "The library folder (required)."),
      .init(name: "json", value: nil, help: "Print results as JSON."),
      .init(
        name: "sort", value: "capture|import",
        help: "list: order by capture date (default) or import date."),
      .init(name: "ascending", value: nil, help: "list: oldest first."),
      .init(name: "edited", value: nil, help: "list: only edited photos."),
      .init(name: "unedited", value: nil, help: "list: only unedited photos."),
      .init(
        name: "camera", value: "TEXT",
        help: "list: only photos whose camera make or model contains TEXT."),
      .init(name: "from", value: "YYYY-MM-DD", help: "list: taken on or after this day (UTC)."),
      .init(name: "until", value: "YYYY-MM-DD", help: "list: taken on or before this day (UTC)."),
      .init(name: "deleted", value: nil, help: "list: the photos in Recently Deleted."),
      .init(name: "all", value: nil, help: "auto: every unedited photo."),
      .init(
        name: "expired", value: nil,
        help: "delete: purge photos deleted longer ago than the retention period."),
      .init(name: "to", value: "DIR", help: "export: the folder to write to (required)."),
      .init(
        name: "original", value: nil, help: "export: the originals instead of the current looks."),
      .init(name: "no-repair", value: nil, help: "check: only report, change nothing."),
    ] + EditOptions.specs,
    positionals: 1...Int.max,
    discussion: """
      Actions:
        init                    create an empty library
        import PATH...          add photos (JPEG, PNG, HEIC, WebP; folders recursively); duplicates skipped
        list                    the photos, newest first (filters above)
        show ID                 one photo and its edit history
        edit ID [edit options]  apply an edit on top of the current one (see 'retouch apply')
        auto --all | ID...      what 'retouch auto' gives each photo, committed as one batch
        revert ID...            back to the originals (history kept)
        delete ID... | --expired  move to Recently Deleted, or purge expired ones
        restore ID...           bring back from Recently Deleted
        export ID... --to DIR   write the current looks (or --original)
        check                   verify hashes and references; repair what can be repaired
      Examples:
        retouch library init --library ~/Photos.retouch
        retouch library import ~/DCIM --library ~/Photos.retouch
        retouch library edit 12 --set exposure=0.3 --look chrome --library ~/Photos.retouch
        retouch library auto --all --library ~/Photos.retouch
      """)

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    let action = arguments.positionals[0]
    guard actions.contains(action) else {
      throw CLIError.usage(
        "unknown library action '\(action)'; choose one of \(actions.joined(separator: ", ")).")
    }
    guard let path = arguments.value("library") else {
      throw CLIError.usage("'retouch library \(action)' needs --library DIR.")
    }
    let folder = URL(fileURLWithPath: path, isDirectory: true)
    if action != "init",
      !FileManager.default.fileExists(
        atPath: folder.appendingPathComponent(PhotoLibrary.databaseFilename).path)
    {
      throw CLIError(
        code: .noInput,
        message:
          "\(path): no library here; create one with 'retouch library init --library \(path)'.")
    }
    let library = try open(folder)
    let rest = Array(arguments.positionals.dropFirst())
    let json = arguments.flag("json")
    switch action {
    case "init":
      try noArguments(rest, action)
      if json {
        printJSON(["library": library.url.path])
      } else {
        Terminal.out("library ready at \(library.url.path)")
      }
      return 0
    case "import": return try importPhotos(rest, into: library, json: json)
    case "list": return try list(library, arguments, rest: rest)
    case "show": return try show(library, ids: try ids(rest, action), json: json)
    case "edit": return try edit(library, arguments, rest: rest)
    case "auto": return try auto(library, arguments, rest: rest)
    case "revert", "restore":
      let requests = try ids(rest, action).map {
        action == "revert" ? ChangeRequest.revertToOriginal($0) : .restore($0)
      }
      try commit(library, requests)
      report(json: json, action, requests.map(\.assetID))
      return 0
    case "delete":
      if arguments.flag("expired") {
        try noArguments(rest, "delete --expired")
        let purged = try call { () throws(LibraryError) in try library.purgeExpiredDeletions() }
        report(json: json, "purged", purged)
        return 0
      }
      let requests = try ids(rest, action).map { ChangeRequest.delete($0) }
      try commit(library, requests)
      report(json: json, "deleted", requests.map(\.assetID))
      return 0
    case "export": return try export(library, arguments, rest: rest)
    default: return try check(library, repair: !arguments.flag("no-repair"), json: json, rest: rest)
    }
  }

  // MARK: Actions

  static func importPhotos(_ paths: [String], into library: PhotoLibrary, json: Bool)
    throws(CLIError) -> Int32
  {
    guard !paths.isEmpty else {
      throw CLIError.usage("'retouch library import' needs at least one file or folder.")
    }
    let bar = ProgressBar(label: "importing")
    let result = try call { () throws(LibraryError) in
      try library.importPhotos(from: paths.map { URL(fileURLWithPath: $0) }) {
        bar.update($0.completed, of: $0.total)
      }
    }
    bar.finish()
    for failure in result.failures {
      Terminal.error("skipped \(failure.file.path): \(failure.reason)")
    }
    if json {
      struct Summary: Encodable {
        let imported: [Asset]
        let duplicates: [[String: String]]
        let failures: [[String: String]]
      }
      printJSON(
        Summary(
          imported: result.imported,
          duplicates: result.duplicates.map {
            ["file": $0.file.path, "existing": $0.existing.description]
          },
          failures: result.failures.map { ["file": $0.file.path, "reason": $0.reason] }))
    } else {
      Terminal.out(
        "imported \(result.imported.count), duplicates \(result.duplicates.count), failed \(result.failures.count)"
      )
    }
    return result.failures.isEmpty ? 0 : CLIError.Code.dataError.rawValue
  }

  static func list(_ library: PhotoLibrary, _ arguments: ParsedArguments, rest: [String])
    throws(CLIError) -> Int32
  {
    try noArguments(rest, "list")
    var query = AssetQuery()
    switch arguments.value("sort") {
    case nil, "capture": query.sort = .captureDate
    case "import": query.sort = .importDate
    case let other?: throw CLIError.usage("'--sort' must be capture or import, got '\(other)'.")
    }
    query.ascending = arguments.flag("ascending")
    if arguments.flag("edited") && arguments.flag("unedited") {
      throw CLIError.usage("'--edited' and '--unedited' exclude each other.")
    }
    query.edits = arguments.flag("edited") ? .edited : arguments.flag("unedited") ? .unedited : .any
    query.camera = arguments.value("camera")
    query.deletion = arguments.flag("deleted") ? .deleted : .live
    let from = try day(arguments.value("from"), "from")
    let until = try day(arguments.value("until"), "until").map { $0.addingTimeInterval(86_399.999) }
    if from != nil || until != nil {
      let low = from ?? .distantPast, high = until ?? .distantFuture
      guard low <= high else { throw CLIError.usage("'--from' is after '--until'.") }
      query.captureDates = low...high
    }
    let assets = try call { () throws(LibraryError) in try library.assets(query) }
    if arguments.flag("json") {
      printJSON(assets)
      return 0
    }
    var lines: [String] = []
    for a in assets {
      let date = (a.captureDate ?? a.importDate).formatted(
        .iso8601.year().month().day().dateSeparator(.dash))
      lines.append(
        [
          pad(a.id.description, 6), pad(date, 11), pad(a.isEdited ? "edited" : "-", 7),
          pad(a.camera ?? "-", 28), a.originalFilename,
        ]
        .joined())
    }
    Terminal.out(lines.isEmpty ? "no photos" : lines.joined(separator: "\n"))
    return 0
  }

  static func show(_ library: PhotoLibrary, ids: [AssetID], json: Bool) throws(CLIError) -> Int32 {
    struct Shown: Encodable {
      let asset: Asset
      let original: String
      let current: String
      let history: [Entry]
    }
    struct Entry: Encodable {
      let revision: Int64
      let date: Date
      let kind: String
      let format: String?
      let render: String?
      let edit: EditConfig?
    }
    var shown: [Shown] = []
    for id in ids {
      let item = try call { () throws(LibraryError) -> Shown in
        let asset = try library.asset(id)
        let history = try library.history(of: id).map {
          Entry(
            revision: $0.id, date: $0.date, kind: $0.kind.rawValue,
            format: $0.adjustmentData.map { "\($0.formatIdentifier) \($0.formatVersion)" },
            render: library.renderURL(of: $0)?.path, edit: $0.editConfig)
        }
        return Shown(
          asset: asset, original: library.originalURL(for: asset).path,
          current: try library.currentImageURL(of: id).path,
          history: history)
      }
      shown.append(item)
    }
    if json {
      printJSON(ids.count == 1 ? AnyEncodable(shown[0]) : AnyEncodable(shown))
      return 0
    }
    for s in shown {
      let a = s.asset
      var lines = [
        "photo \(a.id): \(a.originalFilename)\(a.isDeleted ? " (in Recently Deleted)" : "")",
        "  format      \(a.format) \(a.pixelSize.map { "\($0.width)×\($0.height)" } ?? "?"), orientation \(a.orientation.rawValue), \(a.fileSize) bytes",
        "  camera      \(a.camera ?? "-")",
        "  taken       \(a.captureDate.map { "\($0)" } ?? "-")",
        "  imported    \(a.importDate)",
        "  location    \(a.location.map { String(format: "%.5f, %.5f", $0.latitude, $0.longitude) } ?? "-")",
        "  original    \(s.original)",
        "  current     \(s.current)",
        "  history     \(s.history.isEmpty ? "none" : "newest first")",
      ]
      for e in s.history {
        let what =
          e.kind == "edit"
          ? (e.edit.map { String(decoding: $0.jsonData(), as: UTF8.self) } ?? e.format ?? "")
          : "revert to original"
        lines.append("    #\(e.revision) \(e.date) \(what)")
      }
      Terminal.out(lines.joined(separator: "\n"))
    }
    return 0
  }

  /// Retouch's own editor on one photo: resumes the previous Retouch edit (original + its
  /// EditConfig, the options added on top) or, for another editor's edit, works on its render.
  static func edit(_ library: PhotoLibrary, _ arguments: ParsedArguments, rest: [String])
    throws(CLIError) -> Int32
  {
    let id = try ids(rest, "edit")
    guard id.count == 1 else { throw CLIError.usage("'retouch library edit' takes one photo ID.") }
    let input = try call { () throws(LibraryError) in
      try library.requestContentEditingInput(for: id[0])
    }
    let (photo, base) = try startingPoint(of: input)
    let config = try EditOptions.config(from: arguments, base: base)
    let output = try render(config, of: photo, for: input)
    defer { try? FileManager.default.removeItem(at: output.renderedContentURL) }
    try commit(library, [.edit(id[0], output: output, editConfig: config)])
    if arguments.flag("json") {
      printJSON([
        "photo": id[0].description, "edit": String(decoding: config.jsonData(), as: UTF8.self),
      ])
    } else {
      Terminal.out("photo \(id[0]): \(String(decoding: config.jsonData(), as: UTF8.self))")
    }
    return 0
  }

  /// The photo file Retouch's editor starts from and the edit it resumes, by the input's
  /// resume-or-baked-in rule.
  static func startingPoint(of input: ContentEditingInput) throws(CLIError) -> (URL, EditConfig) {
    do {
      switch try input.base(for: RetouchEditingController()) {
      case .original(let resuming):
        guard let url = input.originalURL else {
          throw CLIError(code: .software, message: "the original is not a file.")
        }
        return (
          url,
          try resuming.map { data throws(EditingError) in
            try RetouchEditingController.config(from: data)
          } ?? .neutral
        )
      case .rendered(.file(let url)): return (url, .neutral)
      case .rendered(.data):
        throw CLIError(code: .software, message: "the rendered photo is not a file.")
      }
    } catch let error as CLIError {
      throw error
    } catch let error as EditingError {
      throw CLIError(code: .dataError, message: error.description)
    } catch {
      throw CLIError(code: .software, message: "\(error)")
    }
  }

  /// The top suggestion for each photo (every unedited one with --all), committed in one batch.
  static func auto(_ library: PhotoLibrary, _ arguments: ParsedArguments, rest: [String])
    throws(CLIError) -> Int32
  {
    let targets: [AssetID]
    if arguments.flag("all") {
      guard rest.isEmpty else { throw CLIError.usage("'--all' takes no photo IDs.") }
      targets = try call { () throws(LibraryError) in
        try library.assets(AssetQuery(edits: .unedited)).map(\.id)
      }
    } else {
      targets = try ids(rest, "auto")
    }
    let engine = SuggestionEngine()
    let bar = ProgressBar(label: "suggesting")
    var outputs: [(AssetID, ContentEditingOutput, EditConfig)] = []
    defer { for o in outputs { try? FileManager.default.removeItem(at: o.1.renderedContentURL) } }
    var unchanged: [AssetID] = []
    for (i, id) in targets.enumerated() {
      bar.update(i, of: targets.count)
      let input = try call { () throws(LibraryError) in
        try library.requestContentEditingInput(for: id)
      }
      // Unedited photos (with --all) start from the original; a photo given by id that shows
      // an edit gets the suggestion on top of its render.
      let photo =
        input.renderedPhoto.flatMap { if case .file(let url) = $0 { url } else { nil } }
        ?? input.originalURL
      guard let photo else {
        throw CLIError(code: .software, message: "photo \(id): the original is not a file.")
      }
      // Full resolution, so the grain is measured and each photo gets what `retouch auto`
      // would give it (a 512 px shrink-on-load copy hid the grain: Clean Up was never applied).
      let (image, metadata) = try ApplyCommand.load(photo)
      guard let config = engine.autoEdit(for: image, metadata: metadata) else {
        unchanged.append(id)
        continue
      }
      let output = try render(config, of: photo, for: input, decoded: (image, metadata))
      outputs.append((id, output, config))
    }
    bar.update(targets.count, of: targets.count)
    bar.finish()
    try commit(library, outputs.map { ChangeRequest.edit($0.0, output: $0.1, editConfig: $0.2) })
    if arguments.flag("json") {
      printJSON([
        "edited": outputs.map { $0.0.description }, "unchanged": unchanged.map(\.description),
      ])
    } else {
      Terminal.out(
        "edited \(outputs.count) photo(s) in one batch; \(unchanged.count) already look their best")
    }
    return 0
  }

  static func export(_ library: PhotoLibrary, _ arguments: ParsedArguments, rest: [String])
    throws(CLIError) -> Int32
  {
    guard let to = arguments.value("to") else {
      throw CLIError.usage("'retouch library export' needs --to DIR.")
    }
    let folder = URL(fileURLWithPath: to, isDirectory: true)
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw CLIError(
        code: .cantCreate, message: "\(to): cannot create the folder: \(error.localizedDescription)"
      )
    }
    var written: [String] = []
    for id in try ids(rest, "export") {
      let (asset, source) = try call { () throws(LibraryError) -> (Asset, URL) in
        let asset = try library.asset(id)
        return (
          asset,
          arguments.flag("original")
            ? library.originalURL(for: asset) : try library.currentImageURL(of: id)
        )
      }
      let stem = URL(fileURLWithPath: asset.originalFilename).deletingPathExtension()
        .lastPathComponent
      let suffix = arguments.flag("original") || !asset.isEdited ? "" : "-edited"
      let destination = folder.appendingPathComponent("\(stem)\(suffix).\(source.pathExtension)")
      do {
        if FileManager.default.fileExists(atPath: destination.path) {
          try FileManager.default.removeItem(at: destination)
        }
        try FileManager.default.copyItem(at: source, to: destination)
        // Copies of originals are the user's to change.
        try FileManager.default.setAttributes(
          [.posixPermissions: 0o644], ofItemAtPath: destination.path)
      } catch {
        throw CLIError(ImageEncodingError.unwritable(destination, error))
      }
      written.append(destination.path)
    }
    if arguments.flag("json") {
      printJSON(written)
    } else {
      Terminal.out(written.joined(separator: "\n"))
    }
    return 0
  }

  static func check(_ library: PhotoLibrary, repair: Bool, json: Bool, rest: [String])
    throws(CLIError) -> Int32
  {
    try noArguments(rest, "check")
    let report = try call { () throws(LibraryError) in try library.checkIntegrity(repair: repair) }
    if json {
      struct Out: Encodable {
        let consistent: Bool
        let assets: Int
        let revisions: Int
        let problems: [[String: String]]
      }
      printJSON(
        Out(
          consistent: report.isConsistent, assets: report.assetsChecked,
          revisions: report.revisionsChecked,
          problems: report.problems.map {
            [
              "kind": $0.kind.label, "subject": $0.subject, "detail": $0.detail,
              "repaired": String($0.repaired),
            ]
          }))
    } else {
      for p in report.problems { Terminal.out(p.description) }
      Terminal.out(
        "checked \(report.assetsChecked) photo(s), \(report.revisionsChecked) revision(s): "
          + (report.problems.isEmpty
            ? "all good" : report.isConsistent ? "repaired" : "problems remain"))
    }
    return report.isConsistent ? 0 : CLIError.Code.dataError.rawValue
  }

  // MARK: Helpers

  /// Renders `config` on `photo` into a fresh output for `input` (JPEG, metadata corrected), with
  /// Retouch's editor's adjustment data: streamed when it is a JPEG, else decoded and rendered
  /// whole. A caller that already decoded the photo (``ApplyCommand/load(_:)``) passes it as
  /// `decoded`, and it is rendered from that instead of being read and decoded again.
  static func render(
    _ config: EditConfig, of photo: URL, for input: ContentEditingInput,
    decoded: (Image, PhotoMetadata)? = nil
  ) throws(CLIError) -> ContentEditingOutput {
    var output = ContentEditingOutput(input)
    let url = output.renderedContentURL
    var streamed = false
    if decoded == nil {
      streamed = try ApplyCommand.streamJPEG(
        photo, to: url, config: config, options: EncodeOptions())
    }
    if !streamed {
      let (image, metadata) = if let decoded { decoded } else { try ApplyCommand.load(photo) }
      do {
        try ImageEncoder().write(
          (consume image).rendered(with: config), as: .jpeg, metadata: metadata, to: url)
      } catch {
        throw CLIError(error)
      }
    }
    output.adjustmentData = RetouchEditingController.adjustmentData(for: config)
    return output
  }

  static func open(_ folder: URL) throws(CLIError) -> PhotoLibrary {
    try call { () throws(LibraryError) in try PhotoLibrary(at: folder) }
  }

  static func commit(_ library: PhotoLibrary, _ requests: [ChangeRequest]) throws(CLIError) {
    guard !requests.isEmpty else { return }
    _ = try call { () throws(LibraryError) in try library.performChanges(requests) }
  }

  /// Runs a library call, mapping its error to an exit code.
  static func call<T>(_ body: () throws(LibraryError) -> T) throws(CLIError) -> T {
    do {
      return try body()
    } catch {
      let code: CLIError.Code =
        switch error.kind {
        case .notFound, .invalidChange: .dataError
        case .badPhoto, .integrity: .dataError
        case .fileSystem: .cantCreate
        default: .software
        }
      throw CLIError(code: code, message: error.description)
    }
  }

  static func ids(_ args: [String], _ action: String) throws(CLIError) -> [AssetID] {
    guard !args.isEmpty else {
      throw CLIError.usage(
        "'retouch library \(action)' needs photo IDs (see 'retouch library list').")
    }
    var result: [AssetID] = []
    for a in args {
      guard let v = Int64(a), v > 0 else {
        throw CLIError.usage("'\(a)' is not a photo ID (a positive whole number).")
      }
      result.append(AssetID(v))
    }
    return result
  }

  static func noArguments(_ args: [String], _ action: String) throws(CLIError) {
    guard args.isEmpty else {
      throw CLIError.usage("'retouch library \(action)' takes no arguments, got '\(args[0])'.")
    }
  }

  static func day(_ raw: String?, _ name: String) throws(CLIError) -> Date? {
    guard let raw else { return nil }
    let parts = raw.split(separator: "-").compactMap { Int($0) }
    var c = DateComponents()
    c.timeZone = TimeZone(secondsFromGMT: 0)
    guard parts.count == 3 else {
      throw CLIError.usage("'--\(name)' takes YYYY-MM-DD, got '\(raw)'.")
    }
    (c.year, c.month, c.day) = (parts[0], parts[1], parts[2])
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(secondsFromGMT: 0)!
    guard let date = calendar.date(from: c), c.isValidDate(in: calendar) else {
      throw CLIError.usage("'--\(name)' takes YYYY-MM-DD, got '\(raw)'.")
    }
    return date
  }

  static func report(json: Bool, _ what: String, _ ids: [AssetID]) {
    if json {
      printJSON([what: ids.map(\.description)])
    } else {
      Terminal.out("\(what) \(ids.map(\.description).joined(separator: " "))")
    }
  }

  static func printJSON<T: Encodable>(_ value: T) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    let data = (try? encoder.encode(value)) ?? Data("null".utf8)
    Terminal.out(String(decoding: data, as: UTF8.self))
  }

  static func pad(_ s: String, _ n: Int) -> String {
    s + String(repeating: " ", count: max(1, n - s.count))
  }
}

/// Type-erased `Encodable`, for printing one item or a list with the same code.
struct AnyEncodable: Encodable {
  let encodeValue: (any Encoder) throws -> Void
  init<T: Encodable>(_ value: T) { encodeValue = value.encode }
  func encode(to encoder: any Encoder) throws { try encodeValue(encoder) }
}

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
final class ProgressBar {
  let label: String
  let enabled = Terminal.stderrIsTerminal
  private var lastDrawn = -1

  init(label: String) { self.label = label }

  func update(_ done: Int, of total: Int) {
    guard enabled, total > 0 else { return }
    let width = 30
    let filled = min(width, done * width / total)
    guard filled != lastDrawn || done == total else { return }
    lastDrawn = filled
    let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
    FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(done)/\(total)".utf8))
  }

  func finish() {
    guard enabled, lastDrawn >= 0 else { return }
    FileHandle.standardError.write(Data("\n".utf8))
  }
}
