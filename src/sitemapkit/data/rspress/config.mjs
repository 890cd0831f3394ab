// sitemapkit: an Rspress 2 site's config as Rspress itself loads it (its own
// loadConfigFile: imports, presets and environment variables all applied).
// argv: the config file, the project folder. Prints one JSON line:
//   {"root", "base", "siteOrigin"}   the resolved values (root absolute)
//   {"missing": message}             no @rspress/core where the project finds packages
//   {"error": message}               the config threw while Rspress loaded it
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const [configFile, project] = process.argv.slice(2).map((p) => path.resolve(p))
const say = (value) => process.stdout.write(JSON.stringify(value) + '\n')
let loader
try {
  const from = createRequire(path.join(project, 'noop.js'))
  const file = from.resolve('@rspress/core/dist/config/loadConfigFile.js')
  loader = await import(pathToFileURL(file).href)
} catch (error) {
  say({ missing: String((error && error.message) || error).split('\n')[0] })
  process.exit(0)
}
try {
  process.chdir(project)
  const { content } = await loader.loadConfigFile(configFile)
  const config = content || {}
  say({
    root: loader.resolveDocRoot(project, undefined, config.root),
    base: typeof config.base === 'string' ? config.base : '/',
    siteOrigin: typeof config.siteOrigin === 'string' ? config.siteOrigin : null,
  })
} catch (error) {
  say({ error: String((error && error.message) || error).split('\n')[0] })
}
