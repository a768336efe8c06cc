#!/usr/bin/env node
'use strict'
// Thin launcher: the CLI is built by `npm run build` into out/main/cli.js.
const path = require('node:path')
const fs = require('node:fs')
const cli = path.join(__dirname, '..', 'out', 'main', 'cli.js')
if (!fs.existsSync(cli)) {
  process.stderr.write('toolgate: the CLI is not built yet. Run `npm run build` in ' + path.dirname(__dirname) + ' first.\n')
  process.exit(2)
}
require(cli)
