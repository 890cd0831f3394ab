// sitemapkit: a Next.js project's config as Next itself resolves it (its own
// `loadConfig`, the phase of `next build`: presets, plugins such as Nextra's and
// Fumadocs', environment variables), printed as one JSON line:
//   {"next": {basePath, trailingSlash, output, distDir, assetPrefix, appDir, appPages},
//    "nextra": {contentDir, contentDirBasePath, locales, pages: [...]}}   (a Nextra site)
//    "fumadocs": {module, pages: [...]} or {problem}}                   (a Fumadocs site)
//   or {"missing": true} (no Next.js beside the project) or {"error": message}.
// For a Nextra site, its pages as Nextra's own page map makes them (the functions its
// loader runs at build time over the content directory and the app directory): each
// {route, file, meta}: the page's route (under contentDirBasePath), its file, and the
// `_meta` file of the folder it is the index page of (the list that file orders).
// For a Fumadocs site, its pages as the project's own `loader()` gives them: the module
// that makes its source (`lib/source.ts`, as Fumadocs' templates name it) is bundled
// with esbuild (fumadocs-mdx's own) with every MDX import left empty (only the files'
// places are needed) and run; each page of each loader it exports: {url, file, meta}:
// its URL (under Next's basePath), its file, and the meta file of the folder it is the
// index page of.
// argv: the project folder.
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const project = path.resolve(process.argv[2] || '.')

function say (object) {
  process.stdout.write(JSON.stringify(object) + '\n')
}

function loaderOptions (config, key) {
  // Nextra's loaders carry their options as plain data in the bundler rules it adds
  const rules = { ...(config.experimental?.turbo?.rules || {}), ...(config.turbopack?.rules || {}) }
  for (const rule of Object.values(rules)) {
    for (const loader of (rule && rule.loaders) || []) {
      if (loader && typeof loader === 'object' && loader.options && key in loader.options) {
        return loader.options
      }
    }
  }
  return null
}

function walk (items, folder, found, lang) {
  const meta = items.find((item) => item.__metaPath)
  for (const item of items) {
    if (item.children) {
      walk(item.children, item, found, lang)
    } else if (item.__pagePath) {
      const isIndex = folder ? item.route === folder.route : item.route === '/'
      found.push({
        route: item.route,
        file: item.__pagePath,
        meta: isIndex && meta ? meta.__metaPath : null,
        locale: lang,
      })
    }
  }
}

const SOURCE_MODULES = ['lib/source.ts', 'lib/source.tsx', 'lib/source.js', 'lib/source.mjs',
  'src/lib/source.ts', 'src/lib/source.js', 'app/source.ts', 'source.ts']

function treeMeta (node, loader, found) {
  // a folder of the page tree: its index page is dated by the meta file that orders it
  for (const child of node.children || []) {
    if (child.type === 'folder') {
      const meta = loader.getNodeMeta(child)
      const page = child.index && loader.getNodePage(child.index)
      if (meta && page && meta.absolutePath && page.absolutePath) {
        found.set(page.absolutePath, meta.absolutePath)
      }
      treeMeta(child, loader, found)
    }
  }
}

async function fumadocs (require) {
  const file = SOURCE_MODULES.find((f) => fs.existsSync(path.join(project, f)))
  if (!file) return { problem: `no ${SOURCE_MODULES.slice(0, 2).join(' or ')} makes its loader` }
  let esbuild
  try {
    const mdx = require.resolve('fumadocs-mdx/package.json')
    esbuild = createRequire(mdx).resolve('esbuild')
  } catch {
    try { esbuild = require.resolve('esbuild') } catch {
      return { problem: 'esbuild (a dependency of fumadocs-mdx) is not installed' }
    }
  }
  const { build } = await import(pathToFileURL(esbuild).href)
  const stub = {
    name: 'sitemapkit-no-mdx',
    setup (b) {
      // a collection's files, imported with a query (`x.mdx?collection=docs`): MDX left
      // empty, JSON read as it is (a meta file's order shapes the page tree), YAML empty
      b.onResolve({ filter: /\.(mdx?|json|ya?ml)\?/ }, (a) => ({
        path: path.resolve(a.resolveDir, a.path.split('?')[0]), namespace: 'collection',
      }))
      b.onResolve({ filter: /\.mdx?$/ }, (a) => ({
        path: path.resolve(a.resolveDir, a.path), namespace: 'collection',
      }))
      b.onLoad({ filter: /.*/, namespace: 'collection' }, (a) => (a.path.endsWith('.json')
        ? { contents: fs.readFileSync(a.path, 'utf8'), loader: 'json' }
        : {
            contents: /\.ya?ml$/.test(a.path) ? 'export default {}\n'
              : 'export default function MDX () { return null }\nexport const frontmatter = {}\n' +
                'export const toc = []\nexport const structuredData = {}\n',
            loader: 'js',
          }))
    },
  }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sitemapkit-fumadocs-'))
  const bundle = path.join(folder, 'source.mjs')
  try {
    await build({
      entryPoints: [path.join(project, file)], bundle: true, platform: 'node', format: 'esm',
      outfile: bundle, absWorkingDir: project, logLevel: 'silent', plugins: [stub],
      banner: { js: "import { createRequire as __sitemapkitRequire } from 'node:module';" +
        'const require = __sitemapkitRequire(import.meta.url);' },
    })
    const module = await import(pathToFileURL(bundle).href)
    const pages = []
    for (const [name, loader] of Object.entries(module)) {
      if (!loader || typeof loader.getPages !== 'function') continue
      const metas = new Map()
      const trees = loader._i18n ? Object.values(loader.pageTree) : [loader.pageTree]
      for (const tree of trees) treeMeta(tree, loader, metas)
      // the root's meta file orders the top level: it counts toward the root page
      const top = loader.getPage([])
      const rootMeta = ['meta.json', 'meta.yaml', 'meta.yml'].map((f) =>  // 16.x, then 15.x
        loader.getNodeMeta({ $ref: { meta: f } }) ||
        loader.getNodeMeta({ $ref: { metaFile: f } })).find(Boolean)
      if (top && top.absolutePath && rootMeta && rootMeta.absolutePath) {
        metas.set(top.absolutePath, rootMeta.absolutePath)
      }
      for (const page of loader.getPages()) {
        pages.push({
          loader: name,
          url: page.url,
          file: page.absolutePath ? path.resolve(project, page.absolutePath) : null,
          path: page.path,
          meta: metas.has(page.absolutePath)
            ? path.resolve(project, metas.get(page.absolutePath)) : null,
          locale: page.locale || '',
        })
      }
    }
    return { module: file, pages }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true })
  }
}

async function main () {
  process.chdir(project)
  const require = createRequire(path.join(project, 'noop.js'))
  let nextDir
  try {
    nextDir = path.dirname(require.resolve('next/package.json'))
  } catch {
    say({ missing: true })
    return
  }
  const from = (dir, file) => import(pathToFileURL(path.join(dir, file)).href)
  // Next's modules are CommonJS: their exports object is the namespace's default
  const pick = (mod, name) => (mod.default && typeof mod.default === 'object'
    ? mod.default[name] : undefined) ?? mod[name]
  const loadConfig = pick(await from(nextDir, 'dist/server/config.js'), 'default')
  const PHASE = pick(await from(nextDir, 'dist/shared/lib/constants.js'), 'PHASE_PRODUCTION_BUILD')
  const findPagesDir = pick(await from(nextDir, 'dist/lib/find-pages-dir.js'), 'findPagesDir')
  const config = await loadConfig(PHASE, project, { silent: true })
  const appDir = findPagesDir(project).appDir || null
  const answer = {
    next: {
      basePath: config.basePath || '',
      trailingSlash: Boolean(config.trailingSlash),
      output: config.output || null,
      distDir: config.distDir || '.next',
      assetPrefix: config.assetPrefix || '',
      appDir: appDir && path.relative(project, appDir),
    },
  }
  // the pages of the app folder that are one route each (no dynamic segment), as the
  // build recorded them (its app-path-routes manifest: entry -> route), each with the
  // file of that entry among Next's pageExtensions
  answer.next.appPages = []
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(project, answer.next.distDir,
      'app-path-routes-manifest.json'), 'utf8'))
    for (const [entry, route] of Object.entries(manifest)) {
      if (!entry.endsWith('/page') || route.includes('[') || !appDir) continue
      const file = (config.pageExtensions || ['tsx', 'ts', 'jsx', 'js'])
        .map((ext) => path.join(appDir, `${entry.slice(1)}.${ext}`)).find((f) => fs.existsSync(f))
      if (file) answer.next.appPages.push({ route, file: path.relative(project, file) })
    }
  } catch {}
  const nextra = loaderOptions(config, 'contentDir')
  if (nextra && appDir) {
    let nextraDir
    try {
      nextraDir = path.dirname(require.resolve('nextra/package.json'))
    } catch {}
    if (nextraDir) {
      const { findMetaAndPageFilePaths } = await from(nextraDir,
        'dist/server/page-map/find-meta-and-page-file-paths.js')
      const { convertToPageMap } = await from(nextraDir, 'dist/server/page-map/to-page-map.js')
      let locales = ['']
      try {
        locales = JSON.parse(config.env?.NEXTRA_LOCALES || '[""]')
      } catch {}
      const pages = []
      for (const locale of locales) {
        const filePaths = await findMetaAndPageFilePaths({
          dir: appDir, cwd: project, locale, contentDir: nextra.contentDir,
        })
        const basePath = nextra.shouldAddLocaleToLinks
          ? [locale, nextra.contentDirBasePath].filter(Boolean).join('/')
          : nextra.contentDirBasePath
        let { pageMap } = convertToPageMap({ filePaths, basePath, locale })
        if (nextra.shouldAddLocaleToLinks && pageMap[0] && 'children' in pageMap[0]) {
          pageMap = pageMap[0].children
        }
        walk(pageMap, null, pages, locale)
      }
      answer.nextra = {
        contentDir: nextra.contentDir,
        contentDirBasePath: nextra.contentDirBasePath || '',
        locales,
        localeInLinks: Boolean(nextra.shouldAddLocaleToLinks),
        pages,
      }
    }
  }
  if (['source.config.ts', 'source.config.mts', 'source.config.js', 'source.config.mjs']
    .some((f) => fs.existsSync(path.join(project, f)))) {
    try {
      answer.fumadocs = await fumadocs(require)
    } catch (err) {
      answer.fumadocs = { problem: String((err && err.message) || err).split('\n')[0] }
    }
  }
  say(answer)
}

main().catch((err) => {
  say({ error: String((err && err.message) || err).split('\n')[0] })
})
