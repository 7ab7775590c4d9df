import Foundation

// The Traditional Chinese descriptions of HealthExportError (Taiwan, Hong
// Kong, Macau), case for case with the English and Simplified Chinese ones.
// The switch has no `default`, so a new case does not compile until it has
// its Traditional Chinese text. Alike in shape with the other languages' on purpose.
extension HealthExportError {
  var traditionalChineseDescription: String {
    switch self {
    case .cannotOpen(let path, let reason): return "無法開啟 \(path)：\(reason)"
    case .readFailed(let path, let reason): return "讀取 \(path) 失敗：\(reason)"
    case .notAZip(let path):
      return "\(path) 不是 zip 壓縮檔（找不到中央目錄結尾記錄）。請選擇「健康」App 匯出的 export.zip 或解壓縮後的 export.xml。"
    case .incompleteZip(let path, let byteCount):
      return "\(path) 是不完整的 zip 壓縮檔（\(byteCount) 位元組後就結束了，缺少結尾的中央目錄）：下載或複製很可能沒有完成。請重新複製，或重新從「健康」App 匯出。"
    case .corruptZip(let path, let detail, let byteOffset):
      return "\(path) 已損毀（第 \(byteOffset) 位元組）：\(detail)。請重新從「健康」App 匯出。"
    case .unsupportedCompression(let entry, let method):
      return "\(entry) 使用了不支援的壓縮方法 \(method)（只支援儲存 0 和 deflate 8）。"
    case .encryptedEntry(let entry): return "\(entry) 已加密，無法讀取。"
    case .corruptCompressedData(let entry, let detail):
      return "\(entry) 的壓縮資料已損毀：\(detail)。請重新從「健康」App 匯出。"
    case .checksumMismatch(let entry):
      return "\(entry) 的 CRC-32 檢查碼不符，檔案已損毀。請重新從「健康」App 匯出。"
    case .malformedXML(let file, let line, let column, let detail):
      return "\(file):\(line):\(column)：XML 格式錯誤：\(detail)。"
    case .truncated(let file, let line, let column):
      return "\(file):\(line):\(column)：檔案在元素結束之前就中斷了（匯出或複製不完整）。請重新從「健康」App 匯出。"
    case .tokenTooLarge(let file, let line, let column, let limit):
      return "\(file):\(line):\(column)：單一標籤或註解超過 \(limit) 位元組的上限，檔案不是正常的「健康」匯出。"
    case .notAHealthExport(let file):
      return "\(file) 不是「健康」匯出檔案（沒有 <HealthData> 根元素）。請選擇「健康」App 匯出的 export.zip 或 export.xml。"
    case .noValidRecords(let file, let count, let examples):
      let shown = examples.prefix(3).map(\.description).joined(separator: "; ")
      return "\(file) 中的 \(count) 筆步數和距離紀錄全部無效，無法計數。前幾筆：\(shown)"
    case .noHealthExportXML(let path, let entries) where entries.isEmpty:
      return "\(path) 是一個空的 zip 壓縮檔，其中沒有任何檔案，也就沒有「健康」匯出的 XML。"
    case .noHealthExportXML(let path, let entries):
      let list = entries.prefix(20).joined(separator: ", ")
      let more = entries.count > 20 ? " 等 \(entries.count) 項" : ""
      return "\(path) 中沒有「健康」匯出的 XML（<HealthData>）。其中包含：\(list)\(more)"
    }
  }
}
