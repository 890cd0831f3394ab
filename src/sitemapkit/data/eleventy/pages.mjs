// sitemapkit: each page of an Eleventy 3 site, as Eleventy itself maps them.
// Runs the project's own Eleventy (its config, directories, data cascade, collections
// and pagination, as `eleventy` runs them) up to the moment it has mapped every page to
// its URL (its `eleventy.contentMap` event), then stops: nothing is rendered or written,
// and no `eleventy.before` hook runs. Prints one JSON object:
//   {"config": {input, output, data, pathPrefix, url, urlFrom},
//    "dataFiles": {global data file: its object path ("metadata", "a.b")},
//    "pages": [{out, url, input, paginated, data, members, imports, imported, mentions,
//               local}]}
//   or {"missing": true} (no Eleventy beside the project) or {"error": message}.
// page: out, Eleventy's output path; input, the template; members, the input paths of
// the collection items a paginated page lists; data, the pagination's data key when it
// paginates anything else; imports, the collections it declares (eleventyImport), and
// imported, their items' input paths; mentions, whether a template that declares no
// collection names `collections` in its own text (it may list some, unsaid); local,
// the template and directory data files that exist for it.
// argv: the project folder.
import { createRequire } from 'node:module'
import path from 'node:path'
import fs from 'node:fs'
import { pathToFileURL } from 'node:url'

const project = path.resolve(process.argv[2] || '.')
const STOP = new Error('sitemapkit: mapped')
const URL_KEYS = [['metadata', 'url'], ['site', 'url'], ['metadata', 'siteUrl'],
  ['site', 'baseUrl'], ['site', 'baseURL'], ['metadata', 'baseUrl']]

function say (object) {
  process.stdout.write(JSON.stringify(object) + '\n')
}

function relative (file) {
  return file ? path.relative(project, path.resolve(project, file)).split(path.sep).join('/') : null
}

async function main () {
  let entry
  try {  // the package's ES module entry (its `import` export), from the project
    let manifest = createRequire(path.join(project, 'noop.js')).resolve('@11ty/eleventy')
    do manifest = path.join(path.dirname(path.dirname(manifest)), 'package.json')
    while (!fs.existsSync(manifest) && path.dirname(manifest) !== path.dirname(path.dirname(manifest)))
    const exported = JSON.parse(fs.readFileSync(manifest, 'utf8')).exports?.['.']?.import
    entry = path.join(path.dirname(manifest), exported || 'src/Eleventy.js')
  } catch {
    say({ missing: true })
    return
  }
  const { Eleventy } = await import(pathToFileURL(entry).href)
  process.chdir(project)
  const elev = new Eleventy(undefined, undefined, {
    quietMode: true,
    config (eleventyConfig) {
      eleventyConfig.on('eleventy.contentMap', () => { throw STOP })
    },
  })
  await elev.init()
  const dirs = elev.directories
  const writer = elev.writer
  const templateData = writer.templateData || elev.templateData
  const dataFiles = {}
  for (const file of await templateData.getGlobalDataFiles()) {
    dataFiles[relative(file)] = templateData.getObjectPathForDataFile(file).join('.')
  }
  const globalData = await templateData.getGlobalData()
  let url = null
  let urlFrom = null
  for (const [top, key] of URL_KEYS) {
    const value = globalData && globalData[top] && globalData[top][key]
    if (typeof value === 'string' && /^https?:\/\//.test(value)) {
      url = value
      const file = Object.keys(dataFiles).find((f) => dataFiles[f] === top)
      urlFrom = `${file || top} ${key}`
      break
    }
  }
  try {
    await writer._createTemplateMap(await writer._getAllPaths(), 'json')
  } catch (err) {
    if (err !== STOP && !(err && err.originalError === STOP) && !String(err && err.stack).includes(STOP.message)) throw err
  }
  const map = writer.templateMap
  const pages = []
  for (const entry of map.getMap()) {
    const imports = Array.isArray(entry.data?.eleventyImport?.collections)
      ? entry.data.eleventyImport.collections.map(String) : []
    const key = entry.data?.pagination?.data
    const imported = []  // the input paths of the collections it declares it lists
    for (const tag of imports) {
      for (const item of map.collectionsData?.[tag] || []) {
        const file = item && relative(item.inputPath)
        if (file && !imported.includes(file)) imported.push(file)
      }
    }
    let mentions = false  // a template that names `collections` and declares none
    if (!key && !imports.length) {
      try {
        mentions = fs.readFileSync(entry.inputPath, 'utf8').includes('collections')
      } catch {}
    }
    const local = []  // only what data pagination may read from
    if (key && map.getTagTarget(String(key)) === undefined) {
      for (const file of await templateData.getLocalDataPaths(entry.inputPath)) {
        if (fs.existsSync(file) && !local.includes(relative(file))) local.push(relative(file))
      }
    }
    for (const page of entry._pages || []) {
      if (!page.outputPath || page.outputPath === false) continue
      const items = page.data?.pagination?.items
      let members = null
      if (key && map.getTagTarget(String(key)) !== undefined) {
        members = (Array.isArray(items) ? items : []).map((item) => item && item.inputPath)
          .filter(Boolean).map(relative)
      }
      pages.push({
        out: path.relative(path.resolve(dirs.output), path.resolve(page.outputPath)).split(path.sep).join('/'),
        url: page.url,
        input: relative(entry.inputPath),
        paginated: Boolean(key),
        data: key && members === null ? String(key) : null,
        members,
        imports,
        imported,
        mentions,
        local,
      })
    }
  }
  say({
    config: {
      input: relative(dirs.input) || '.',
      output: relative(dirs.output),
      data: relative(dirs.data),
      pathPrefix: elev.config.pathPrefix || '/',
      url,
      urlFrom,
    },
    dataFiles,
    pages,
  })
}

main().catch((err) => {
  say({ error: String((err && err.message) || err).split('\n')[0] })
})
