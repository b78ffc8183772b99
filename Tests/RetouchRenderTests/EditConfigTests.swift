// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import Testing

@testable import RetouchRender

@Suite("EditConfig")
struct EditConfigTests {
  @Test func untouchedSettingsAreZero() {
    let c = EditConfig(properties: [.exposure: 0.5, .contrast: 0])
    #expect(c.value(of: .exposure) == 0.5)
    #expect(c.value(of: .contrast) == 0)
    #expect(c.properties[.contrast] == nil, "zero values are not stored")
    #expect(!EditConfig.neutral.hasEdits)
    #expect(c.hasEdits)
  }

  @Test func combineAddsValuesAndComposesRotations() {
    let a = EditConfig(properties: [.exposure: 0.1, .saturation: 0.2], editRotation: .rotate90)
    let b = EditConfig(
      properties: [.exposure: 0.1], editRotation: .flipped, actionType: .setting(.exposure))
    let c = [a, b].combine()
    #expect(abs(c.value(of: .exposure) - 0.2) < 1e-12)
    #expect(c.value(of: .saturation) == 0.2)
    #expect(c.editRotation == EditRotation.rotate90.flippedHorizontally())
    #expect(c.actionType == .setting(.exposure))
  }

  @Test func combineReplacesCropAspectAndLookOnlyWhenTheChangeSetsThem() {
    let crop = NormalizedRect(x: 0.1, y: 0.1, width: 0.5, height: 0.5)
    let a = EditConfig(crop: crop, aspectRatio: .square, look: LookSelection(.noir))
    let kept = a.combined(with: EditConfig(properties: [.tint: 0.1]))
    #expect(kept.crop == crop && kept.aspectRatio == .square && kept.look == LookSelection(.noir))
    let replaced = a.combined(
      with: EditConfig(
        crop: .init(x: 0, y: 0, width: 0.2, height: 0.2), look: LookSelection(.fade, strength: 0.5))
    )
    #expect(replaced.crop.width == 0.2 && replaced.look?.look == .fade)
  }

  @Test func scalingMultipliesValuesButNotGeometry() {
    let crop = NormalizedRect(x: 0.2, y: 0, width: 0.6, height: 1)
    let c = EditConfig(
      properties: [.exposure: 1, .vignette: -0.5, .straighten: 10], crop: crop, aspectRatio: .r4x3,
      editRotation: .rotate270, look: LookSelection(.chrome, strength: 0.8))
    let s = c.scaled(by: 0.5)
    #expect(s.value(of: .exposure) == 0.5)
    #expect(s.value(of: .vignette) == -0.25)
    #expect(s.value(of: .straighten) == 10)
    #expect(s.crop == crop && s.aspectRatio == .r4x3 && s.editRotation == .rotate270)
    #expect(s.look?.strength == 0.4)
  }

  @Test func rotationsFormTheSquareGroup() {
    for a in EditRotation.allCases {
      #expect(a.combined(with: a.inverse) == .original)
      #expect(a.combined(with: .original) == a)
      for b in EditRotation.allCases {
        for c in EditRotation.allCases {
          #expect(a.combined(with: b).combined(with: c) == a.combined(with: b.combined(with: c)))
        }
      }
    }
    #expect(EditRotation.original.rotatedClockwise().rotatedClockwise() == .rotate180)
    #expect(EditRotation.rotate90.flippedHorizontally().flippedHorizontally() == .rotate90)
    #expect(EditRotation.original.flippedVertically() == .rotate180Flipped)
    #expect(EditRotation.rotate90.swapsDimensions && !EditRotation.rotate180Flipped.swapsDimensions)
  }

  @Test func jsonRoundTripsEveryField() throws {
    let c = EditConfig(
      properties: [.exposure: 0.3, .mixer(.blue, .saturation): -0.25, .straighten: 3.5],
      crop: NormalizedRect(x: 0.125, y: 0, width: 0.75, height: 1), aspectRatio: .r16x9,
      editRotation: .rotate90Flipped, look: LookSelection(.sepia, strength: 0.6),
      actionType: .setting(.exposure))
    let data = c.jsonData()
    let back = try EditConfig(json: data)
    #expect(back == c)
    #expect(back.jsonData() == data, "writing is deterministic")
  }

  /// A config written by this version (format 1), stored verbatim: later versions must read it.
  @Test func readsTheVersionOneFormat() throws {
    let stored =
      #"{"action":"contrast","aspectRatio":"4:3","crop":[0,0.1,1,0.8],"format":"retouch.edit","look":{"look":"noir","strength":0.8},"rotation":"rotate180","settings":{"contrast":0.2,"mixer.green.hue":-0.1},"version":1}"#
    let c = try EditConfig(json: Data(stored.utf8))
    #expect(c.value(of: .contrast) == 0.2)
    #expect(c.value(of: .greenHue) == -0.1)
    #expect(c.crop == NormalizedRect(x: 0, y: 0.1, width: 1, height: 0.8))
    #expect(c.aspectRatio == .r4x3 && c.editRotation == .rotate180)
    #expect(c.look == LookSelection(.noir, strength: 0.8))
    #expect(c.actionType == .setting(.contrast))
    #expect(String(decoding: c.jsonData(), as: UTF8.self) == stored)
  }

  @Test(arguments: [
    (#"{"settings":{"sparkle":1}}"#, RenderError.Kind.unknownSetting, "'sparkle' is not a setting"),
    (#"{"settings":{"contrast":3}}"#, .valueOutOfRange, "contrast is 3.0, allowed -1…1"),
    (#"{"crop":[0.5,0,0.8,1]}"#, .invalidCrop, "must lie inside 0…1"),
    (#"{"version":7}"#, .newerVersion, "version 7"),
    (#"{"settings":{"contrast":"high"}}"#, .malformedEdit, "settings.contrast"),
    (#"{"settings":"#, .malformedEdit, "(at top level)"),
    (#"{"format":"other.editor","version":1}"#, .malformedEdit, "expected 'retouch.edit'"),
  ])
  func rejectsBadJSON(json: String, kind: RenderError.Kind, message: String) {
    let error = #expect(throws: RenderError.self) {
      try EditConfig(json: Data(json.utf8), source: "edit.json")
    }
    #expect(error?.kind == kind)
    #expect(error?.description.hasPrefix("edit.json: \(kind.label): ") == true)
    #expect(error?.detail.contains(message) == true, "\(error?.detail ?? "")")
  }
}

@Suite("Settings")
struct EditSettingTests {
  @Test func everySettingIsALocalizedSlider() {
    for type in EditSettingType.allCases {
      let s = type.setting
      #expect(s.minimum < s.maximum, "\(type)")
      #expect(
        (s.minimum...s.maximum).contains(0) || type == .aspectRatio,
        "\(type): neutral outside range")
      #expect(!s.localizedName(.english).isEmpty && s.localizedName(.english) != "?")
      #expect(
        s.localizedName(.simplifiedChinese) != s.localizedName(.english),
        "\(type) has no Chinese name")
      #expect(!s.symbolName.isEmpty)
    }
  }

  @Test func listsCoverEverySettingOnce() {
    let listed =
      EditSetting.available.map(\.type)
      + MixerChannel.allCases.flatMap { EditSetting.colorMixer($0).map(\.type) }
      + EditSetting.rotationSettings.map(\.type)
    #expect(Set(listed) == Set(EditSettingType.allCases))
    #expect(listed.count == EditSettingType.allCases.count)
    #expect(EditSetting.available.first?.type == .exposure)
  }

  @Test func changeConfigCarriesItsAction() {
    let c = EditSettingType.contrast.setting.change(by: 0.3)
    #expect(c.value(of: .contrast) == 0.3 && c.actionType == .setting(.contrast))
    let a = EditSettingType.aspectRatio.setting.change(
      by: Double(EditAspectRatio.allCases.firstIndex(of: .square)!))
    #expect(a.aspectRatio == .square)
  }
}

@Suite("Crop geometry")
struct CropGeometryTests {
  @Test func correctedCropKeepsRatioAnchorAndBounds() {
    let W = 4000, H = 3000
    for handle in CropHandle.allCases {
      for aspect in [EditAspectRatio.square, .r16x9, .r9x16, .original] {
        let r = CropGeometry.corrected(
          NormalizedRect(x: 0.1, y: 0.2, width: 0.7, height: 0.5), to: aspect, imageWidth: W,
          imageHeight: H,
          dragging: handle)
        let ratio = r.width * Double(W) / (r.height * Double(H))
        let want = aspect.ratio(forImageWidth: W, height: H)!
        #expect(abs(ratio - want) < 1e-6, "\(handle) \(aspect): ratio \(ratio)")
        #expect(r.isValid, "\(handle) \(aspect): \(r)")
      }
    }
    // Dragging the top-left corner keeps the bottom-right corner where it was.
    let r = CropGeometry.corrected(
      NormalizedRect(x: 0.2, y: 0.2, width: 0.6, height: 0.6), to: .square, imageWidth: W,
      imageHeight: H,
      dragging: .topLeft)
    #expect(abs(r.maxX - 0.8) < 1e-9 && abs(r.maxY - 0.8) < 1e-9)
  }

  @Test func straightenScaleCoversTheCorners() {
    #expect(
      CropGeometry.straightenScale(
        degrees: 0, cropWidth: 400, cropHeight: 300, imageWidth: 400, imageHeight: 300) == 1)
    let s = CropGeometry.straightenScale(
      degrees: 10, cropWidth: 400, cropHeight: 300, imageWidth: 400, imageHeight: 300)
    // Rotating the scaled photo by 10° must contain the crop's corners.
    let t = 10 * Double.pi / 180
    for (cx, cy) in [(200.0, 150.0), (-200.0, 150.0), (200.0, -150.0), (-200.0, -150.0)] {
      let x = cx * cos(t) + cy * sin(t), y = -cx * sin(t) + cy * cos(t)
      #expect(abs(x) <= 200 * s + 1e-6 && abs(y) <= 150 * s + 1e-6)
    }
    #expect(s > 1.2 && s < 1.4)
  }
}
