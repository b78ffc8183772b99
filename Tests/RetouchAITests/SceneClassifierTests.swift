// SPDX-License-Identifier: Apache-2.0

import RetouchAI
import RetouchCore
import RetouchRender
import Testing

@Suite struct SceneClassifierTests {
  @Test func flatGreyHasNoScene() {
    let image = AnalysisTestPhotos.synthetic(width: 512, height: 384) { _, _ in (128, 128, 128) }
    let analysis = AnalysisTestPhotos.analysis(of: image)
    #expect(SceneClassifier.classifyScene(analysis) == nil)
    #expect(analysis.sceneScores.count == Scene.allCases.count)
    #expect(analysis.sceneScores.values.allSatisfy { (0...1).contains($0) })
  }

  // Photos the heuristics get right, one or two per scene they can tell; see the commit message
  // for the hit rate over the whole shared set.
  @Test(arguments: [
    ("d08", [Scene.sky, .nature]), ("d10", [.sky]), ("d19", [.nature]), ("g68", [.nature, .food]),
    ("g65", [.people]), ("g46", [.people]), ("d25", [.food]), ("s03", [.food]),
    ("g66", [.light]), ("g87", [.indoor]),
  ])
  func classifiesClearScenes(id: String, expected: [Scene]) throws {
    let (image, metadata) = try AnalysisTestPhotos.load(id)
    let scene = SceneClassifier.classifyScene(
      AnalysisTestPhotos.analysis(of: image, metadata: metadata))
    #expect(scene.map(expected.contains) == true, "\(id): \(String(describing: scene))")
  }

  @Test func classifyNeedsAClearLead() {
    func analysis(_ scores: [Scene: Double]) -> PhotoAnalysis {
      var a = AnalysisTestPhotos.analysis(
        of: AnalysisTestPhotos.synthetic(width: 64, height: 64) { _, _ in (0, 0, 0) })
      a.sceneScores = scores
      return a
    }
    #expect(SceneClassifier.classifyScene(analysis([.sky: 0.8, .nature: 0.7])) == nil)
    #expect(SceneClassifier.classifyScene(analysis([.sky: 0.8, .nature: 0.6])) == .sky)
    #expect(SceneClassifier.classifyScene(analysis([.city: 0.45])) == nil)
    #expect(SceneClassifier.classifyScene(analysis([:])) == nil)
  }

  @Test func scoresAreDeterministic() throws {
    let (image, metadata) = try AnalysisTestPhotos.load("g68")
    let a = AnalysisTestPhotos.analysis(of: image, metadata: metadata)
    let b = AnalysisTestPhotos.analysis(of: image, metadata: metadata)
    #expect(a == b)
  }

  @Test func everySceneHasItsOwnTitleAndSymbol() {
    #expect(Set(Scene.allCases.map(\.title.english)).count == Scene.allCases.count)
    #expect(Set(Scene.allCases.map(\.title.simplifiedChinese)).count == Scene.allCases.count)
    #expect(Set(Scene.allCases.map(\.symbolName)).count == Scene.allCases.count)
  }
}
