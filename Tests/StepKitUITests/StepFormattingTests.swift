import Foundation
import StepKit
import Testing

@testable import StepKitUI

@Suite("StepFormatting: numbers, distances and days in the person's language and region")
struct StepFormattingTests {
  @Test("steps are grouped the region's way")
  func numbers() throws {
    #expect(try Fixture.formatting(.english).number(12_030) == "12,030")
    #expect(try Fixture.formatting(.traditionalChinese, locale: "zh_TW").number(12_030) == "12,030")
    #expect(try Fixture.formatting(.english, locale: "de_DE").number(12_030) == "12.030")
  }

  @Test("the formatting locale is the language in the person's region")
  func locale() throws {
    #expect(
      try Fixture.formatting(.traditionalChinese, locale: "zh_HK").locale.identifier.hasPrefix("zh_Hant_HK"))
    #expect(try Fixture.formatting(.english, locale: "en_GB@calendar=buddhist").locale.identifier == "en_GB")
    #expect(StepFormatting.region(ofLocaleIdentifier: "zh-Hant_TW") == "TW")
    #expect(StepFormatting.region(ofLocaleIdentifier: "es_419") == "419")
    #expect(StepFormatting.region(ofLocaleIdentifier: "en") == nil)
  }

  @Test("distances: one decimal, kilometres where the region is metric, else miles")
  func distances() throws {
    #expect(try Fixture.formatting(.english, locale: "en_GB").distance(meters: 5_240) == "5.2 km")
    #expect(try Fixture.formatting(.english, locale: "en_US").distance(meters: 5_240) == "3.3 mi")
    #expect(try Fixture.formatting(.simplifiedChinese, locale: "zh_CN").distance(meters: 5_240) == "5.2 公里")
    #expect(try Fixture.formatting(.traditionalChinese, locale: "zh_TW").distance(meters: 260) == "0.3 公里")
    #expect(
      try Fixture.formatting(.english, locale: "en_GB").spokenDistance(meters: 5_240) == "5.2 kilometers")
  }

  @Test("days are named in the language, on the calendar's day")
  func days() throws {
    // 23:30 UTC on Sunday is already Monday in Shanghai.
    let date = try Fixture.date("2026-11-29T23:30:00Z")
    let english = try Fixture.formatting(.english)
    #expect(english.shortWeekday(date) == "Mon")
    #expect(english.spokenDay(date) == "Monday, November 30")
    let traditional = try Fixture.formatting(.traditionalChinese, locale: "zh_TW")
    #expect(traditional.shortWeekday(date) == "週一")
    let simplified = try Fixture.formatting(.simplifiedChinese, locale: "zh_CN")
    #expect(simplified.shortWeekday(date) == "周一")
    #expect(simplified.spokenDay(date).contains("11月30日"))
  }
}
