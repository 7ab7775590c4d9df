// The Traditional Chinese names of the health data types, as the Health app
// in Taiwan words them. The switch has no `default`, so a new type does not
// compile until it has its name.
extension HealthDataType {
  var traditionalChineseName: String {
    switch self {
    case .steps: return "步數"
    case .walkingRunningDistance: return "步行 + 跑步距離"
    case .biologicalSex: return "性別"
    case .dateOfBirth: return "出生日期"
    case .bodyMass: return "體重"
    case .height: return "身高"
    case .bodyTemperature: return "體溫"
    case .activeEnergyBurned: return "活動能量"
    case .basalEnergyBurned: return "靜息能量"
    }
  }
}
