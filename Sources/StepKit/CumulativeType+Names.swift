// The Health app's names of the cumulative types, in English, Simplified and
// Traditional Chinese, for messages that name a permission. Nutrients are
// named as the Health app's Nutrition category lists them.
extension CumulativeType {
  /// The type's name in `language`, as the Health app words it (the short
  /// name for a type StepKit does not know).
  ///
  /// - Parameter language: English, Simplified or Traditional Chinese.
  /// - Returns: The name.
  public func name(in language: StepKitLanguage) -> String {
    let key = identifier.hasPrefix(Self.prefix) ? String(identifier.dropFirst(Self.prefix.count)) : identifier
    guard let names = Self.names[key] else { return shortName }
    switch language {
    case .english: return names.0
    case .simplifiedChinese: return names.1
    case .traditionalChinese: return names.2
    }
  }

  /// The ``HealthDataType`` of the same HealthKit type, for the four StepKit
  /// has always named (steps, walking + running distance, active and resting
  /// energy), so that their errors stay the ones they were.
  var healthDataType: HealthDataType? {
    switch identifier {
    case CumulativeType.stepCount.identifier: return .steps
    case CumulativeType.distanceWalkingRunning.identifier: return .walkingRunningDistance
    case CumulativeType.activeEnergyBurned.identifier: return .activeEnergyBurned
    case CumulativeType.basalEnergyBurned.identifier: return .basalEnergyBurned
    default: return nil
    }
  }

  private static let prefix = "HKQuantityTypeIdentifier"

  private static let names: [String: (String, String, String)] = [
    "StepCount": ("Steps", "步数", "步數"),
    "DistanceWalkingRunning": ("Walking + Running Distance", "步行 + 跑步距离", "步行 + 跑步距離"),
    "ActiveEnergyBurned": ("Active Energy", "活动能量", "活動能量"),
    "BasalEnergyBurned": ("Resting Energy", "静息能量", "靜息能量"),
    "FlightsClimbed": ("Flights Climbed", "已爬楼层", "已爬樓層"),
    "AppleExerciseTime": ("Exercise Minutes", "锻炼分钟数", "運動分鐘數"),
    "AppleMoveTime": ("Move Minutes", "活动分钟数", "活動分鐘數"),
    "AppleStandTime": ("Stand Minutes", "站立分钟数", "站立分鐘數"),
    "DistanceCycling": ("Cycling Distance", "骑车距离", "騎車距離"),
    "DistanceSwimming": ("Swimming Distance", "游泳距离", "游泳距離"),
    "DistanceWheelchair": ("Wheelchair Distance", "轮椅距离", "輪椅距離"),
    "DistanceDownhillSnowSports": ("Downhill Snow Sports Distance", "下坡雪上运动距离", "下坡雪上運動距離"),
    "DistanceCrossCountrySkiing": ("Cross-Country Skiing Distance", "越野滑雪距离", "越野滑雪距離"),
    "DistancePaddleSports": ("Paddle Sports Distance", "划桨运动距离", "划槳運動距離"),
    "DistanceRowing": ("Rowing Distance", "划船距离", "划船距離"),
    "DistanceSkatingSports": ("Skating Sports Distance", "滑冰运动距离", "滑冰運動距離"),
    "PushCount": ("Pushes", "轮椅推动次数", "輪椅推動次數"),
    "SwimmingStrokeCount": ("Swimming Strokes", "游泳划水次数", "游泳划水次數"),
    "NikeFuel": ("NikeFuel", "NikeFuel", "NikeFuel"),
    "NumberOfTimesFallen": ("Number of Times Fallen", "摔倒次数", "跌倒次數"),
    "InhalerUsage": ("Inhaler Usage", "吸入器使用情况", "吸入器使用情況"),
    "NumberOfAlcoholicBeverages": ("Number of Alcoholic Beverages", "酒精饮料数", "酒精飲料數"),
    // Discrete, so not a CumulativeType StepKit knows; named for the error that refuses it.
    "UVExposure": ("UV Index", "紫外线指数", "紫外線指數"),
    "TimeInDaylight": ("Time in Daylight", "日光下时间", "日光下時間"),
    "DietaryEnergyConsumed": ("Dietary Energy", "膳食能量", "膳食能量"),
    "DietaryWater": ("Water", "水", "水"),
    "InsulinDelivery": ("Insulin Delivery", "胰岛素输注", "胰島素輸注"),
    "DietaryBiotin": ("Biotin", "生物素", "生物素"),
    "DietaryCaffeine": ("Caffeine", "咖啡因", "咖啡因"),
    "DietaryCalcium": ("Calcium", "钙", "鈣"),
    "DietaryCarbohydrates": ("Carbohydrates", "碳水化合物", "碳水化合物"),
    "DietaryChloride": ("Chloride", "氯化物", "氯化物"),
    "DietaryCholesterol": ("Dietary Cholesterol", "膳食胆固醇", "膳食膽固醇"),
    "DietaryChromium": ("Chromium", "铬", "鉻"),
    "DietaryCopper": ("Copper", "铜", "銅"),
    "DietaryFatMonounsaturated": ("Monounsaturated Fat", "单不饱和脂肪", "單元不飽和脂肪"),
    "DietaryFatPolyunsaturated": ("Polyunsaturated Fat", "多不饱和脂肪", "多元不飽和脂肪"),
    "DietaryFatSaturated": ("Saturated Fat", "饱和脂肪", "飽和脂肪"),
    "DietaryFatTotal": ("Total Fat", "总脂肪", "總脂肪"),
    "DietaryFiber": ("Fiber", "膳食纤维", "膳食纖維"),
    "DietaryFolate": ("Folate", "叶酸", "葉酸"),
    "DietaryIodine": ("Iodine", "碘", "碘"),
    "DietaryIron": ("Iron", "铁", "鐵"),
    "DietaryMagnesium": ("Magnesium", "镁", "鎂"),
    "DietaryManganese": ("Manganese", "锰", "錳"),
    "DietaryMolybdenum": ("Molybdenum", "钼", "鉬"),
    "DietaryNiacin": ("Niacin", "烟酸", "菸鹼酸"),
    "DietaryPantothenicAcid": ("Pantothenic Acid", "泛酸", "泛酸"),
    "DietaryPhosphorus": ("Phosphorus", "磷", "磷"),
    "DietaryPotassium": ("Potassium", "钾", "鉀"),
    "DietaryProtein": ("Protein", "蛋白质", "蛋白質"),
    "DietaryRiboflavin": ("Riboflavin", "核黄素", "核黃素"),
    "DietarySelenium": ("Selenium", "硒", "硒"),
    "DietarySodium": ("Sodium", "钠", "鈉"),
    "DietarySugar": ("Sugar", "糖", "糖"),
    "DietaryThiamin": ("Thiamin", "硫胺素", "硫胺素"),
    "DietaryVitaminA": ("Vitamin A", "维生素 A", "維生素 A"),
    "DietaryVitaminB12": ("Vitamin B12", "维生素 B12", "維生素 B12"),
    "DietaryVitaminB6": ("Vitamin B6", "维生素 B6", "維生素 B6"),
    "DietaryVitaminC": ("Vitamin C", "维生素 C", "維生素 C"),
    "DietaryVitaminD": ("Vitamin D", "维生素 D", "維生素 D"),
    "DietaryVitaminE": ("Vitamin E", "维生素 E", "維生素 E"),
    "DietaryVitaminK": ("Vitamin K", "维生素 K", "維生素 K"),
    "DietaryZinc": ("Zinc", "锌", "鋅"),
  ]
}
