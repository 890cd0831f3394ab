// sitemapkit: an Astro site's config as Astro itself resolves it (its own config
// loader, the one `astro build` uses: imports, integrations and environment variables
// applied). argv: the project root. Prints one JSON line:
//   {"site", "base", "trailingSlash", "format"}   the resolved values
//   {"missing": message}    no astro where the project finds its packages
//   {"error": message}      the config threw while Astro loaded it
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const root = path.resolve(process.argv[2])
const say = (value) => process.stdout.write(JSON.stringify(value) + '\n')
let loader
try {
  const from = createRequire(path.join(root, 'noop.js'))
  const home = path.dirname(from.resolve('astro/package.json'))
  loader = await import(pathToFileURL(path.join(home, 'dist/core/config/index.js')).href)
} catch (error) {
  say({ missing: String((error && error.message) || error).split('\n')[0] })
  process.exit(0)
}
try {
  const { astroConfig } = await loader.resolveConfig({ root }, 'build')
  say({
    site: astroConfig.site || null,
    base: astroConfig.base || '/',
    trailingSlash: astroConfig.trailingSlash,
    format: astroConfig.build && astroConfig.build.format,
  })
} catch (error) {
  say({ error: String((error && error.message) || error).split('\n')[0] })
}
