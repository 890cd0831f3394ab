// sitemapkit: a VitePress site's config as VitePress itself resolves it (its own
// resolveConfig: imports, presets, `extends` and environment variables all applied).
// argv: the docs root (the folder `vitepress build` is given). Prints one JSON line:
//   {"srcDir", "outDir", "base", "cleanUrls", "hostname"}   the resolved values
//   {"missing": message}       no vitepress installed where the docs root resolves it
//   {"error": message}         the config threw while VitePress loaded it
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const root = path.resolve(process.argv[2])
const say = (value) => process.stdout.write(JSON.stringify(value) + '\n')
let vitepress
try {
  const from = createRequire(path.join(root, 'noop.js'))
  vitepress = await import(pathToFileURL(from.resolve('vitepress')).href)
} catch (error) {
  say({ missing: String((error && error.message) || error).split('\n')[0] })
  process.exit(0)
}
try {
  const config = await vitepress.resolveConfig(root, 'build', 'production')
  say({
    srcDir: config.srcDir,
    outDir: config.outDir,
    base: config.site.base,
    cleanUrls: Boolean(config.cleanUrls),
    hostname: (config.sitemap && config.sitemap.hostname) || null,
  })
} catch (error) {
  say({ error: String((error && error.message) || error).split('\n')[0] })
}
