Platform.ignoreBrokenPipeSignal()
Platform.exit(StepKitCommand.main(Array(CommandLine.arguments.dropFirst()), console: .standard))
