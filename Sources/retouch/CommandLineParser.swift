// SPDX-License-Identifier: Apache-2.0

/// What a subcommand accepts: its options and how many positional arguments.
struct CommandSpec {
  struct Option {
    /// Long name without dashes, e.g. "quality".
    let name: String
    /// Value placeholder for help ("Q"); nil for a flag.
    let value: String?
    let help: String
    /// Whether the option may be given more than once.
    var repeatable = false
    /// A one-letter alias (`-o`).
    var short: Character? = nil
  }

  let name: String
  let abstract: String
  /// Usage line after `retouch <name>`, e.g. "IN OUT [options]".
  let usage: String
  let options: [Option]
  /// Allowed positional argument count.
  let positionals: ClosedRange<Int>
  /// Extra help text (examples).
  var discussion: String = ""

  var helpText: String {
    var lines = ["OVERVIEW: \(abstract)", "", "USAGE: retouch \(name) \(usage)", ""]
    if !options.isEmpty {
      lines.append("OPTIONS:")
      let all = options + [Option(name: "help", value: nil, help: "Show this help.")]
      let width = all.map { optionLabel($0).count }.max() ?? 0
      for o in all {
        let label = optionLabel(o)
        lines.append("  " + label + String(repeating: " ", count: width - label.count + 2) + o.help)
      }
    }
    if !discussion.isEmpty { lines += ["", discussion] }
    return lines.joined(separator: "\n")
  }

  private func optionLabel(_ o: Option) -> String {
    let long = o.value.map { "--\(o.name) \($0)" } ?? "--\(o.name)"
    return o.short.map { "-\($0), " + long } ?? long
  }

  /// Parses `arguments` (after the subcommand name).
  ///
  /// Accepts `--name value`, `--name=value`, flags, and `--` to end options.
  /// - Throws: ``CLIError`` with exit code 64 for unknown options, missing values or a wrong
  ///   number of positional arguments.
  func parse(_ arguments: [String]) throws(CLIError) -> ParsedArguments {
    var parsed = ParsedArguments()
    var i = 0
    var optionsEnded = false
    while i < arguments.count {
      let arg = arguments[i]
      i += 1
      if optionsEnded || !arg.hasPrefix("-") || arg == "-" {
        parsed.positionals.append(arg)
        continue
      }
      if arg == "--" {
        optionsEnded = true
        continue
      }
      if arg == "--help" || arg == "-h" {
        parsed.wantsHelp = true
        continue
      }
      var key: String
      if arg.hasPrefix("--") {
        key = String(arg.dropFirst(2))
      } else if arg.count == 2, let option = options.first(where: { $0.short == arg.last }) {
        key = option.name
      } else {
        throw CLIError.usage(
          "unknown option '\(arg)' for 'retouch \(name)'; see 'retouch \(name) --help'.")
      }
      var inlineValue: String?
      if let eq = key.firstIndex(of: "=") {
        inlineValue = String(key[key.index(after: eq)...])
        key = String(key[..<eq])
      }
      guard let option = options.first(where: { $0.name == key }) else {
        throw CLIError.usage(
          "unknown option '--\(key)' for 'retouch \(name)'; see 'retouch \(name) --help'.")
      }
      if option.value == nil {
        if inlineValue != nil { throw CLIError.usage("'--\(key)' takes no value.") }
        parsed.flags.insert(key)
        continue
      }
      let value: String
      if let inlineValue {
        value = inlineValue
      } else {
        guard i < arguments.count else {
          throw CLIError.usage("'--\(key)' needs a value (\(option.value!)).")
        }
        value = arguments[i]
        i += 1
      }
      if !option.repeatable, parsed.values[key] != nil {
        throw CLIError.usage("'--\(key)' is given more than once.")
      }
      parsed.values[key, default: []].append(value)
    }
    if !parsed.wantsHelp, !positionals.contains(parsed.positionals.count) {
      let expected =
        positionals.lowerBound == positionals.upperBound
        ? "\(positionals.lowerBound)"
        : "\(positionals.lowerBound)…\(positionals.upperBound == Int.max ? "" : "\(positionals.upperBound)")"
      throw CLIError.usage(
        "'retouch \(name)' takes \(expected) argument(s), got \(parsed.positionals.count); usage: retouch \(name) \(usage)"
      )
    }
    return parsed
  }
}

/// The result of parsing one subcommand's arguments.
struct ParsedArguments {
  var positionals: [String] = []
  var values: [String: [String]] = [:]
  var flags: Set<String> = []
  var wantsHelp = false

  func flag(_ name: String) -> Bool { flags.contains(name) }
  func value(_ name: String) -> String? { values[name]?.last }
  func all(_ name: String) -> [String] { values[name] ?? [] }

  /// An integer option within `range`, or nil when absent.
  func int(_ name: String, in range: ClosedRange<Int>) throws(CLIError) -> Int? {
    guard let raw = value(name) else { return nil }
    guard let v = Int(raw), range.contains(v) else {
      throw CLIError.usage(
        "'--\(name)' must be a whole number in \(range.lowerBound)…\(range.upperBound), got '\(raw)'."
      )
    }
    return v
  }
}
