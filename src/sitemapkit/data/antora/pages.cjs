// sitemapkit: each published page of an Antora site, as Antora itself finds them.
// Runs the site's own Antora (its playbook builder, content aggregator and classifier:
// no conversion, no UI, nothing written) and prints one JSON object per line:
//   {"site": {url, output}}                       the playbook's site URL and output dir
//   {"failed": source url, "error": message}      a content source Antora cannot read
//   {"page": pub.url, "out": out.path, "origin": {...}, "path": src.path,
//    "abspath": src.abspath, "parts": [...]}     a page and where Antora read it; parts:
//                                                 the files it includes, the same way
//                                                 (resolved as Antora resolves includes)
// argv: playbook file, then folders to resolve @antora/site-generator from.
'use strict'
const { createRequire } = require('node:module')
const path = require('node:path')

const [playbookFile, ...roots] = process.argv.slice(2)

function antora () {
  for (const root of roots) {
    try {
      const from = createRequire(path.join(root, 'noop.js'))
      const near = createRequire(from.resolve('@antora/site-generator'))
      return {
        buildPlaybook: near('@antora/playbook-builder'),
        aggregateContent: near('@antora/content-aggregator'),
        classifyContent: near('@antora/content-classifier'),
        resolveAsciiDocConfig: near('@antora/asciidoc-loader').resolveAsciiDocConfig,
        logger: near('@antora/logger'),
        resolveInclude: near('@antora/asciidoc-loader/include/resolve-include-file'),
      }
    } catch {}
  }
  return null
}

const INCLUDE = /^include::([^[\n{]+)\[/gm
const DEPTH = 8

function where (src) {
  const origin = src.origin || {}
  return {
    origin: { url: origin.url || null, gitdir: origin.gitdir || null,
      refname: origin.refname || null, reftype: origin.reftype || null,
      refhash: origin.refhash || null, worktree: origin.worktree || null,
      startPath: origin.startPath || '' },
    path: src.path,
    abspath: src.abspath || null,
  }
}

// the files a page includes, and what they include, as Antora's include processor
// resolves each target (a resource ID, or a path relative to the including file)
function includes (page, src, text, catalog, resolveInclude, depth, found) {
  if (depth > DEPTH) return found
  for (const [, target] of text.matchAll(INCLUDE)) {
    let resolved
    try {
      resolved = resolveInclude(target.trim(), page, { dir: path.posix.dirname(src.path), file: { src } },
        catalog)
    } catch {}
    if (!resolved || !resolved.src || !resolved.src.origin) continue
    const part = where(resolved.src)
    if (found.some((p) => p.path === part.path && p.origin.gitdir === part.origin.gitdir &&
        p.origin.refname === part.origin.refname)) continue
    found.push(part)
    includes(page, resolved.src, resolved.contents || '', catalog, resolveInclude, depth + 1, found)
  }
  return found
}

function say (object) {
  process.stdout.write(JSON.stringify(object) + '\n')
}

async function main () {
  const found = antora()
  if (!found) {
    say({ missing: roots })
    return
  }
  const { buildPlaybook, aggregateContent, classifyContent, resolveAsciiDocConfig, logger,
    resolveInclude } = found
  logger.configureLogger({ level: 'silent' })
  const playbook = buildPlaybook(['--playbook', playbookFile], {})
  say({ site: { url: playbook.site.url || null, output: playbook.output.dir } })
  const only = (sources) => Object.assign({}, playbook, {
    content: Object.assign({}, playbook.content, { sources }) })
  let readable = playbook.content.sources
  let aggregate
  try {
    aggregate = await aggregateContent(playbook)
  } catch {
    readable = [] // one at a time, then: each source that fails is named
    for (const source of playbook.content.sources) {
      try {
        await aggregateContent(only([source]))
        readable.push(source)
      } catch (err) {
        say({ failed: source.url, error: String((err && err.message) || err).split('\n')[0] })
      }
    }
    if (!readable.length) return
    aggregate = await aggregateContent(only(readable))
  }
  const whole = only(readable)
  const catalog = classifyContent(whole, aggregate, resolveAsciiDocConfig(whole))
  for (const page of catalog.getPages((page) => page.out)) {
    say(Object.assign(where(page.src), {
      page: page.pub.url,
      out: page.out.path,
      parts: includes(page, page.src, String(page.contents || ''), catalog, resolveInclude, 0, []),
    }))
  }
}

main().catch((err) => {
  say({ error: String((err && err.message) || err).split('\n')[0] })
  process.exitCode = 0
})
