extension HealthExportError {
  /// `error` itself when it is a ``HealthExportError`` (always, for the
  /// reader's own calls), otherwise a read failure of `path` describing it.
  init(wrapping error: any Error, path: String) {
    if let exportError = error as? HealthExportError {
      self = exportError
    } else {
      self = .readFailed(path: path, reason: String(describing: error))
    }
  }
}
