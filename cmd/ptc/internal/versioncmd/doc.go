// Package versioncmd implements ptc version: the module version, the
// commit the binary was built from (when the build recorded it) and the
// Go version, as text or JSON (base.VersionInfo).
package versioncmd
