/// Splits a command line into options, flags and positional arguments.
///
/// Accepts `--name value`, `--name=value`, `-o value`, flags (`--quiet`, `-q`),
/// `-` as a positional (standard input) and `--` to end the options. Anything
/// else that starts with `-` is an unknown option.
enum ArgumentParser {
  /// Parses `arguments` (without the program and command names) against `spec`.
  ///
  /// - Parameters:
  ///   - arguments: The command line after the subcommand's name.
  ///   - spec: What the command accepts.
  /// - Returns: The sorted arguments. When `--help` is present, parsing stops
  ///   there and the result only says so.
  /// - Throws: ``UsageError`` with a one-line reason.
  static func parse(_ arguments: [String], spec: ArgumentSpec) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments()
    if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) {
      let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
      if arguments[..<end].contains(where: { $0 == "-h" || $0 == "--help" }) {
        parsed.helpRequested = true
        return parsed
      }
    }
    var index = arguments.startIndex
    var optionsEnded = false
    while index < arguments.endIndex {
      let argument = arguments[index]
      index += 1
      if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
        parsed.positionals.append(argument)
        continue
      }
      if argument == "--" {
        optionsEnded = true
        continue
      }
      let name: String
      var inlineValue: String?
      let option: ArgumentSpec.Option?
      let flag: ArgumentSpec.Flag?
      if argument.hasPrefix("--") {
        let body = argument.dropFirst(2)
        if let equals = body.firstIndex(of: "=") {
          name = String(body[..<equals])
          inlineValue = String(body[body.index(after: equals)...])
        } else {
          name = String(body)
        }
        option = spec.option(named: name)
        flag = spec.flag(named: name)
      } else {
        let body = argument.dropFirst()
        guard body.count == 1, let letter = body.first else {
          throw UsageError("unknown option '\(argument)'")
        }
        option = spec.option(short: letter)
        flag = spec.flag(short: letter)
        name = option?.name ?? flag?.name ?? String(letter)
      }
      if let flag {
        if inlineValue != nil { throw UsageError("--\(flag.name) takes no value") }
        parsed.flags.insert(flag.name)
      } else if let option {
        let value: String
        if let inlineValue {
          value = inlineValue
        } else if index < arguments.endIndex, !spec.looksLikeOption(arguments[index]) {
          value = arguments[index]
          index += 1
        } else {
          throw UsageError("--\(option.name) needs a value (\(option.valueName))")
        }
        guard parsed.values[option.name] == nil else {
          throw UsageError("--\(option.name) is given more than once")
        }
        parsed.values[option.name] = value
      } else {
        throw UsageError("unknown option '\(argument.hasPrefix("--") ? "--" + name : argument)'")
      }
    }
    let takesMore = spec.positionals.contains(where: \.isRepeated)
    guard takesMore || parsed.positionals.count <= spec.positionals.count else {
      throw UsageError("unexpected argument '\(parsed.positionals[spec.positionals.count])'")
    }
    for (position, positional) in spec.positionals.enumerated()
    where position >= parsed.positionals.count && !positional.isOptional {
      throw UsageError("missing \(positional.name) (\(positional.help))")
    }
    return parsed
  }
}

extension ArgumentSpec {
  /// Whether `argument` is something other than a value: an option or flag
  /// this command knows, `--help`, or any `--long` word.
  fileprivate func looksLikeOption(_ argument: String) -> Bool {
    if argument.hasPrefix("--") { return true }
    guard argument.count == 2, let letter = argument.dropFirst().first else { return false }
    return option(short: letter) != nil || flag(short: letter) != nil || letter == "h"
  }
}
