// The product version, injected from package.json at build time would be nicer; kept in one place.
export const VERSION = '0.1.0'
