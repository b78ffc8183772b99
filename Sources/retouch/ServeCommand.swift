// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import RetouchAI
import RetouchEditor
import RetouchLibrary
import RetouchWeb

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `retouch serve [--library DIR] [--port N] [--open] [--host ADDR]`: the web editor.
enum ServeCommand: Subcommand {
  static let spec = CommandSpec(
    name: "serve",
    abstract: "Edit photos in the browser: a local web editor on this machine only.",
    usage: "[--library DIR] [--port N] [--open] [--host ADDR]",
    options: [
      .init(
        name: "library", value: "DIR",
        help: "The Retouch library to edit (default: your own library)."),
      .init(name: "port", value: "N", help: "The port to listen on (default 0: any free port)."),
      .init(name: "open", value: nil, help: "Open the editor in the default browser."),
      .init(
        name: "no-learning", value: nil,
        help: "Neither read nor add to the learning file (see 'retouch learning show')."),
      .init(
        name: "host", value: "ADDR",
        help: "Listen on this IPv4 address instead of 127.0.0.1 (not recommended)."),
    ],
    positionals: 0...0,
    discussion: """
      Prints the address to open; it carries a one-time access token, and nothing without it is \
      served. Ctrl-C stops the editor after the requests in progress finish.
      Without --library, the library is $RETOUCH_LIBRARY, or $XDG_DATA_HOME/retouch/Library \
      (~/.local/share/retouch/Library), created on first use with the sample photos in it. \
      --library DIR opens (or creates, empty) the library in DIR.
      """)

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    var configuration = WebEditor.Configuration()
    if let port = try arguments.int("port", in: 0...65535) { configuration.port = UInt16(port) }
    if let host = arguments.value("host") {
      configuration.host = host
      if host != "127.0.0.1" {
        Terminal.error(
          "retouch serve: warning: listening on \(host): other machines on the network can reach the editor "
            + "(they still need the token).")
      }
    }
    let (folder, isNew) = try libraryFolder(arguments.value("library"))
    let library = try LibraryCommand.open(folder)
    if isNew && arguments.value("library") == nil { seed(library) }
    var backendOptions = LibraryBackend.Options()
    if !arguments.flag("no-learning") { backendOptions.learning = LearningStore() }
    let backend = LibraryBackend(library: library, options: backendOptions)
    let editor = WebEditor(backend: backend, configuration: configuration)
    do {
      try editor.start()
    } catch {
      throw CLIError(code: .software, message: error.description)
    }
    Terminal.out("Retouch web editor for the library in \(folder.path)")
    Terminal.out("Open \(editor.url.absoluteString)")
    Terminal.out("Press Ctrl-C to stop.")
    if arguments.flag("open") { openBrowser(editor.url) }

    // Ctrl-C / SIGTERM: stop accepting, let requests in flight finish (a save commits whole or
    // not at all), end the editing sessions, then return; the library closes with its last
    // reference.
    let stopped = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "retouch.serve.signals")
    var sources: [any DispatchSourceSignal] = []
    for sig in [SIGINT, SIGTERM] {
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
      source.setEventHandler { stopped.signal() }
      source.resume()
      sources.append(source)
    }
    stopped.wait()
    Terminal.error("retouch serve: stopping…")
    editor.stop(graceSeconds: 10)
    waitForAsync { await backend.closeAllSessions() }
    sources.forEach { $0.cancel() }
    return 0
  }

  /// The library folder: the one given, or the default one; and whether it is new (the library
  /// creates it).
  static func libraryFolder(_ given: String?) throws(CLIError) -> (URL, isNew: Bool) {
    let env = ProcessInfo.processInfo.environment
    let folder: URL
    if let given {
      folder = URL(fileURLWithPath: given, isDirectory: true)
    } else if let custom = env["RETOUCH_LIBRARY"], !custom.isEmpty {
      folder = URL(fileURLWithPath: custom, isDirectory: true)
    } else {
      let data =
        env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
      folder = data.appendingPathComponent("retouch/Library", isDirectory: true)
    }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw CLIError(code: .cantCreate, message: "\(folder.path): not a folder.")
      }
      let empty =
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty) ?? false
      return (folder, empty)
    }
    return (folder, true)
  }

  /// Imports the sample photos into a new default library, so a first run has something to
  /// edit. The samples are looked up at run time (embedding 1.8 MB with SwiftPM's embedInCode
  /// makes the compiler chew on a byte-array literal for minutes): $RETOUCH_SAMPLES, else a
  /// `Samples` folder with its CREDITS.md beside the executable or up to five folders above it
  /// (a checkout's build folder), else `../share/retouch/Samples` of an installed binary.
  static func seed(_ library: PhotoLibrary) {
    guard let samples = samplesFolder() else {
      Terminal.error(
        "retouch serve: the sample photos were not found; the new library starts empty.")
      return
    }
    do {
      let result = try library.importPhotos(from: [samples])
      Terminal.out(
        "Added \(result.imported.count) sample photos from \(samples.path) to the new library.")
    } catch {
      Terminal.error("retouch serve: could not add the sample photos: \(error.description)")
    }
  }

  static func samplesFolder() -> URL? {
    let fm = FileManager.default
    if let custom = ProcessInfo.processInfo.environment["RETOUCH_SAMPLES"], !custom.isEmpty {
      return URL(fileURLWithPath: custom, isDirectory: true)
    }
    guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
    var folder = executable.deletingLastPathComponent()
    var candidates = [folder.appendingPathComponent("../share/retouch/Samples").standardizedFileURL]
    for _ in 0..<6 {
      candidates.insert(folder.appendingPathComponent("Samples"), at: candidates.count - 1)
      folder = folder.deletingLastPathComponent()
    }
    return candidates.first { fm.fileExists(atPath: $0.appendingPathComponent("CREDITS.md").path) }
  }

  private static func openBrowser(_ url: URL) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    #if os(macOS)
      process.arguments = ["open", url.absoluteString]
    #else
      process.arguments = ["xdg-open", url.absoluteString]
    #endif
    do {
      try process.run()
    } catch {
      Terminal.error(
        "retouch serve: could not open a browser (\(error.localizedDescription)); open the address above."
      )
    }
  }
}
