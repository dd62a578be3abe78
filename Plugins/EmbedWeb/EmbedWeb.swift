import Foundation
import PackagePlugin

/// Compiles the page (`web/`: HTML, scripts, styles, icons, language catalogues) into the
/// target that uses it, so the daemon is one file that serves its page from anywhere.
/// `--web-root` still serves a folder instead, for working on the page.
@main
struct EmbedWeb: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let web = context.package.directoryURL.appending(path: "web")
        let names = try FileManager.default.contentsOfDirectory(atPath: web.path)
            .filter { !$0.hasPrefix(".") }
            .sorted()
        let inputs = names.map { web.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedWeb+Files.swift")
        return [
            .buildCommand(
                displayName: "Embedding the page: \(names.count) files of the web folder",
                executable: try context.tool(named: "EmbedWebTool").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
