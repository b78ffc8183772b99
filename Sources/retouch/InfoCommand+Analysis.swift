// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchIO

/// `retouch info --analysis FILE…`: what Retouch measured about each photo, as JSON.
extension InfoCommand {
  /// One file's analysis as printed.
  struct AnalysisReport: Encodable {
    let file: String
    var error: String?
    var analysis: PhotoAnalysis?
    /// What kind of picture it is: photograph, blackAndWhitePhotograph or graphic.
    var kind: PictureKind?
    /// The classified scene's id, nil when no scene is clearly ahead.
    var scene: String?
    var sceneTitle: String?
  }

  static func runAnalysis(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    var reports: [AnalysisReport] = []
    var exitCode: Int32 = 0
    for path in arguments.positionals {
      do {
        let decoded = try ImageDecoder().decode(URL(fileURLWithPath: path))
        let analysis = SuggestionEngine().analysis(of: decoded.image, metadata: decoded.metadata)
        let scene = SceneClassifier.classifyScene(analysis)
        reports.append(
          AnalysisReport(
            file: path, analysis: analysis, kind: analysis.kind, scene: scene?.rawValue,
            sceneTitle: scene?.title(.english)))
      } catch {
        let cliError = CLIError(error)
        if exitCode == 0 { exitCode = cliError.code.rawValue }
        reports.append(AnalysisReport(file: path, error: error.description))
        Terminal.error("retouch info: \(error.description)")
      }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    guard let data = try? encoder.encode(reports) else {
      throw CLIError(code: .software, message: "could not encode the analysis as JSON.")
    }
    Terminal.out(String(decoding: data, as: UTF8.self))
    return exitCode
  }
}
