// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The version printed by `retouch --version`.
let retouchVersion = "0.1.0"

/// A subcommand of `retouch`.
protocol Subcommand: Sendable {
  static var spec: CommandSpec { get }
  /// Runs with parsed arguments; returns the exit code.
  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32
}

@main
enum Retouch {
  static let subcommands: [any Subcommand.Type] = [
    InfoCommand.self, ConvertCommand.self, ApplyCommand.self, AutoCommand.self, SuggestCommand.self,
    LooksCommand.self, EditCommand.self, ReopenCommand.self, RevertCommand.self, MatchCommand.self,
    LearningCommand.self, LibraryCommand.self, ServeCommand.self,
  ]

  static var overview: String {
    var lines = [
      "OVERVIEW: Retouch — give a photo the edit it needs, entirely on this machine.", "",
      "USAGE: retouch <subcommand> [options]", "", "SUBCOMMANDS:",
    ]
    let width = subcommands.map { $0.spec.name.count }.max() ?? 0
    for s in subcommands {
      lines.append(
        "  \(s.spec.name)" + String(repeating: " ", count: width - s.spec.name.count + 2)
          + s.spec.abstract)
    }
    lines += [
      "", "OPTIONS:", "  --help     Show this help (or 'retouch <subcommand> --help').",
      "  --version  Print the version.", "",
      "EXIT CODES: 0 ok, 64 usage error, 65 bad input data, 66 unreadable input, 70 internal error,",
      "            73 output cannot be created.",
    ]
    return lines.joined(separator: "\n")
  }

  static func main() {
    let args = Array(CommandLine.arguments.dropFirst())
    exit(run(args))
  }

  static func run(_ args: [String]) -> Int32 {
    guard let first = args.first else {
      Terminal.error(overview)
      return CLIError.Code.usage.rawValue
    }
    switch first {
    case "--help", "-h", "help":
      if args.count > 1, let sub = subcommands.first(where: { $0.spec.name == args[1] }) {
        Terminal.out(sub.spec.helpText)
      } else {
        Terminal.out(overview)
      }
      return 0
    case "--version":
      Terminal.out("retouch \(retouchVersion)")
      return 0
    default: break
    }
    guard let command = subcommands.first(where: { $0.spec.name == first }) else {
      Terminal.error("retouch: unknown subcommand '\(first)'; see 'retouch --help'.")
      return CLIError.Code.usage.rawValue
    }
    do {
      let parsed = try command.spec.parse(Array(args.dropFirst()))
      if parsed.wantsHelp {
        Terminal.out(command.spec.helpText)
        return 0
      }
      return try command.run(parsed)
    } catch {
      Terminal.error("retouch \(command.spec.name): \(error.message)")
      return error.code.rawValue
    }
  }
}

/// Writes to stdout and stderr without buffering surprises.
enum Terminal {
  static func out(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
  }

  static func error(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// Whether stderr is a terminal (progress bars only then).
  static var stderrIsTerminal: Bool { isatty(2) != 0 }
}
