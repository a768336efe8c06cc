// Connecting MCP clients to Toolgate and importing their servers.
export * from './paths'
export * from './launch'
export * from './snippet'
export * from './write'
export * from './import'
export { JsonFileError } from '../json-file'
