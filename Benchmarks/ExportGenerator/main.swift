import Foundation

// export-generator: writes realistic, deterministic Apple Health exports
// (export.xml and/or export.zip) for tests, demos and benchmarks.

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("-h") || arguments.contains("--help") {
  print(generatorUsage, terminator: "")
  exit(0)
}
do {
  let summary = try generateExport(arguments: arguments)
  FileHandle.standardError.write(Data(summary.description.utf8))
} catch {
  FileHandle.standardError.write(Data("export-generator: \(error)\n".utf8))
  exit(1)
}
