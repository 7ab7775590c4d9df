// StepKit re-exports the counting engine, so that an app importing StepKit can
// name ``CountingPolicy`` and ``SourceRanking`` without a second import.
@_exported import StepKitCore
