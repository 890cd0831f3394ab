"""``sitemapkit site`` after ``next build`` with ``output: 'export'``: Nextra 4 (the
docs theme, a ``content/`` folder) and Fumadocs (fumadocs-mdx), real builds from npm
over git histories with set dates, run from the project's root as the README writes it:
``next build && sitemapkit site out/ --base-url URL`` (Next has no setting for the
site's URL). The evidence is Next's own: the routes its build prerendered
(``.next/prerender-manifest.json``) are the URL set, less the 404 page, each at the form
the export serves (``trailingSlash``); every lastmod equals git's per-file answer for
the page's file (a folder's index page: the newest of it and the meta file that orders
the folder)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from docs_projects import need, npm_modules
from gitref import newest, reference_date
from gitrepo import Repo
from site_runs import site_here, written

DATES = ("2024-02-01T09:00:00+01:00", "2024-04-12T14:30:00-04:00", "2024-06-30T08:15:00+05:30",
         "2024-08-19T11:00:00+02:00")


def modules_into(project: Path, modules: Path) -> None:
    """The installed packages, hard-linked into the project: Turbopack (Next 16's
    bundler) does not follow a ``node_modules`` that leads outside the project."""
    shutil.copytree(modules, project / "node_modules", symlinks=True, copy_function=os.link)


def next_build(project: Path) -> set[str]:
    """``next build``, then the routes Next prerendered (its own record), less its
    404 and error pages (``/_not-found``, ``/_global-error``: Next's own, noindex)."""
    done = subprocess.run([need("node"), "node_modules/next/dist/bin/next", "build"],
                          cwd=project, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "NEXT_TELEMETRY_DISABLED": "1"})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    routes = json.loads((project / ".next/prerender-manifest.json").read_text())["routes"]
    return {r for r in routes if not r.startswith("/_") and r not in ("/404", "/500")}


# --- Nextra 4 ---------------------------------------------------------------------------

NEXTRA_FILES = {
    "package.json": '{"name": "handbook", "private": true, "type": "module"}\n',
    ".gitignore": "node_modules\n.next\nout\nnext-env.d.ts\n",
    "next.config.mjs": "import nextra from 'nextra'\n\nconst withNextra = nextra({})\n\n"
                       "export default withNextra({ output: 'export', images: { unoptimized: "
                       "true }, basePath: '/docs' })\n",
    "mdx-components.js": "import { useMDXComponents as theme } from 'nextra-theme-docs'\n\n"
                         "const components = theme()\n\nexport function useMDXComponents("
                         "more) {\n  return { ...components, ...more }\n}\n",
    "app/layout.jsx": """import { Layout, Navbar } from 'nextra-theme-docs'
import { getPageMap } from 'nextra/page-map'
import 'nextra-theme-docs/style.css'

export const metadata = { title: 'Handbook' }

export default async function RootLayout({ children }) {
  return (
    <html lang="en" dir="ltr" suppressHydrationWarning>
      <body>
        <Layout navbar={<Navbar logo={<b>Handbook</b>} />} pageMap={await getPageMap()}>
          {children}
        </Layout>
      </body>
    </html>
  )
}
""",
    "app/[[...mdxPath]]/page.jsx": """\
import { generateStaticParamsFor, importPage } from 'nextra/pages'
import { useMDXComponents } from '../../mdx-components'

export const generateStaticParams = generateStaticParamsFor('mdxPath')

export async function generateMetadata(props) {
  const params = await props.params
  return (await importPage(params.mdxPath)).metadata
}

const Wrapper = useMDXComponents().wrapper

export default async function Page(props) {
  const params = await props.params
  const { default: MDXContent, toc, metadata, sourceCode } = await importPage(params.mdxPath)
  return (
    <Wrapper toc={toc} metadata={metadata} sourceCode={sourceCode}>
      <MDXContent {...props} params={params} />
    </Wrapper>
  )
}
""",
    "app/about/page.jsx": "export default function About() {\n  return <p>About us</p>\n}\n",
    "content/_meta.js": "export default { index: 'Home', install: 'Install', advanced: "
                        "'Advanced' }\n",
    "content/index.mdx": "---\ntitle: Home\n---\n# Welcome\n\nHello.\n",
    "content/install.mdx": "# Install\n\nRun it.\n",
    "content/advanced/_meta.js": "export default { tuning: 'Tuning' }\n",
    "content/advanced/index.mdx": "---\nasIndexPage: true\n---\n# Advanced\n\nThe guides.\n",
    "content/advanced/tuning.mdx": "# Tuning\n\nFast.\n",
}


@pytest.fixture(scope="module")
def nextra_modules(tmp_path_factory) -> Path:
    # zod 4.1: nextra-theme-docs 4.6's props schemas fail under zod 4.6 ("expected
    # nonoptional" for every page); a project's lockfile pins what its build used
    return npm_modules(tmp_path_factory.mktemp("nextra"), "next@15", "react@19",
                       "react-dom@19", "nextra@4", "nextra-theme-docs@4", "zod@4.1")


def test_nextra_every_route_dated_by_its_file_where_next_serves_it(tmp_path, nextra_modules):
    """Nextra's page map names each route's file; a folder's _meta file dates the
    folder's index page; a layout's change dates nothing; ``trailingSlash`` off: every
    page at ``/x``, as Next links it; the set is Next's prerendered routes."""
    repo = Repo(tmp_path / "handbook")
    repo.commit(DATES[0], NEXTRA_FILES)
    repo.commit(DATES[1], {"content/advanced/tuning.mdx": "# Tuning\n\nFaster.\n"})
    repo.commit(DATES[2], {"content/advanced/_meta.js": "export default { tuning: 'Tune' }\n"})
    repo.commit(DATES[3], {"app/layout.jsx": NEXTRA_FILES["app/layout.jsx"].replace(
        "Handbook</b>", "The handbook</b>")})
    modules_into(repo.root, nextra_modules)
    routes = next_build(repo.root)
    base = "https://handbook.example.org/docs/"

    err, _ = site_here(repo.root, "out/", code=2)
    assert "--base-url with the site's URL, its basePath /docs included" in err
    err, _ = site_here(repo.root, "out/", "--base-url", "https://handbook.example.org/", code=1)
    assert "the base URL https://handbook.example.org/ does not end with /docs, under which " \
        "basePath in next.config.mjs serves every page" in err
    assert not (repo.root / "out/sitemap.xml").exists()  # strict: nothing written
    err, rows = site_here(repo.root, "out/", "--base-url", base)
    got = written(repo.root / "out", base)

    def git(path: str) -> str | None:
        return reference_date(repo.root, path)

    assert set(got) == {base + r.lstrip("/") for r in routes}
    assert got == {
        base: newest(git("content/index.mdx"), git("content/_meta.js")),
        base + "install": git("content/install.mdx"),
        base + "advanced": newest(git("content/advanced/index.mdx"),
                                  git("content/advanced/_meta.js")),
        base + "advanced/tuning": git("content/advanced/tuning.mdx"),
        base + "about": git("app/about/page.jsx"),
    }
    assert got[base + "advanced"] == DATES[2] and got[base + "advanced/tuning"] == DATES[1]
    assert DATES[3] not in got.values()  # the layout dates no page
    assert "listed without .html, as Next's trailingSlash: false (next.config.mjs)" in err
    assert {r["reason"] for r in rows} <= {"404 page", "404 pages"}


# --- Fumadocs ---------------------------------------------------------------------------

FUMADOCS_FILES = {
    "package.json": '{"name": "kb", "private": true, "type": "module"}\n',
    ".gitignore": "node_modules\n.next\nout\n.source\nnext-env.d.ts\n",
    "source.config.ts": "import { defineConfig, defineDocs } from 'fumadocs-mdx/config';\n\n"
                        "export const docs = defineDocs({ dir: 'content/docs' });\n\n"
                        "export default defineConfig();\n",
    "next.config.mjs": "import { createMDX } from 'fumadocs-mdx/next';\n\nconst withMDX = "
                       "createMDX();\n\nexport default withMDX({ output: 'export', "
                       "trailingSlash: true, basePath: '/kb' });\n",
    "lib/source.ts": "import { docs } from 'fumadocs-mdx:collections/server';\nimport { loader "
                     "} from 'fumadocs-core/source';\n\nexport const source = loader({\n  "
                     "baseUrl: '/docs',\n  source: docs.toFumadocsSource(),\n});\n",
    "tsconfig.json": json.dumps({"compilerOptions": {
        "target": "ES2022", "lib": ["dom", "dom.iterable", "esnext"], "allowJs": True,
        "skipLibCheck": True, "strict": False, "noEmit": True, "esModuleInterop": True,
        "module": "esnext", "moduleResolution": "bundler", "resolveJsonModule": True,
        "isolatedModules": True, "jsx": "react-jsx", "incremental": True, "baseUrl": ".",
        "paths": {"@/*": ["./*"], "fumadocs-mdx:collections/*": [".source/*"]},
        "plugins": [{"name": "next"}]},
        "include": ["next-env.d.ts", "**/*.ts", "**/*.tsx", ".next/types/**/*.ts"],
        "exclude": ["node_modules"]}, indent=2) + "\n",
    "app/layout.tsx": "export default function RootLayout({ children }: { children: "
                      "React.ReactNode }) {\n  return (<html lang=\"en\"><body>{children}</body>"
                      "</html>);\n}\n",
    "app/page.tsx": "export default function Home() {\n  return (<main><h1>Knowledge base</h1>"
                    "<a href=\"/kb/docs/\">Docs</a></main>);\n}\n",
    "app/docs/[[...slug]]/page.tsx": """import { source } from '@/lib/source';
import { notFound } from 'next/navigation';

export default async function Page(props: { params: Promise<{ slug?: string[] }> }) {
  const params = await props.params;
  const page = source.getPage(params.slug);
  if (!page) notFound();
  const MDX = page.data.body;
  return (<main><h1>{page.data.title}</h1><MDX /></main>);
}

export function generateStaticParams() {
  return source.generateParams();
}
""",
    "content/docs/meta.json": '{"title": "Docs", "pages": ["index", "guide"]}\n',
    "content/docs/index.mdx": "---\ntitle: Overview\n---\nStart here.\n",
    "content/docs/guide/meta.json": '{"title": "Guide", "pages": ["setup"]}\n',
    "content/docs/guide/index.mdx": "---\ntitle: Guide\n---\nThe guides.\n",
    "content/docs/guide/setup.mdx": "---\ntitle: Setup\n---\nSet it up.\n",
}


@pytest.fixture(scope="module")
def fumadocs_modules(tmp_path_factory) -> Path:
    # fumadocs-core 16.15: later 16.x need zbsearch >= 4.0.1, which this machine's
    # registry lacks; TypeScript 5: Next 16.0's type check does not run TypeScript 7
    return npm_modules(tmp_path_factory.mktemp("fumadocs"), "next@16", "react@19",
                       "react-dom@19", "fumadocs-core@16.15.13", "fumadocs-mdx@15",
                       "typescript@5", "@types/react", "@types/node", "@types/mdx")


def test_fumadocs_every_page_dated_by_the_file_its_loader_names(tmp_path, fumadocs_modules):
    """The project's own loader (lib/source.ts) names each page's file and URL; a
    folder's meta.json dates its index page; the app folder's own page by its file;
    ``trailingSlash``: every page at ``/x/``; the set is Next's prerendered routes."""
    repo = Repo(tmp_path / "kb")
    repo.commit(DATES[0], FUMADOCS_FILES)
    repo.commit(DATES[1], {"content/docs/guide/meta.json": '{"title": "Guides", "pages": '
                           '["setup"]}\n'})
    repo.commit(DATES[2], {"content/docs/guide/setup.mdx": "---\ntitle: Setup\n---\nAgain.\n"})
    modules_into(repo.root, fumadocs_modules)
    routes = next_build(repo.root)
    base = "https://kb.example.org/kb/"
    err, rows = site_here(repo.root, "out/", "--base-url", base)
    got = written(repo.root / "out", base)

    def git(path: str) -> str | None:
        return reference_date(repo.root, path)

    assert set(got) == {base + (r.strip("/") + "/").lstrip("/") for r in routes}
    assert got == {
        base: git("app/page.tsx"),
        base + "docs/": newest(git("content/docs/index.mdx"), git("content/docs/meta.json")),
        base + "docs/guide/": newest(git("content/docs/guide/index.mdx"),
                                     git("content/docs/guide/meta.json")),
        base + "docs/guide/setup/": git("content/docs/guide/setup.mdx"),
    }
    assert got[base + "docs/guide/"] == DATES[1]
    assert "4 pages mapped by the generator's own records" in err
    assert {r["change"] for r in rows} == {"not listed"}  # Next's 404 and error pages
    assert {r["reason"] for r in rows} <= {"404 page", "404 pages", "noindex page",
                                           "noindex pages"}
