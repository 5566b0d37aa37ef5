// Package cache keeps the mutate tool's on-disk caches in the user cache
// dir (or $GATHERMUT_CACHE): gzipped JSON entries by kind and key. The
// discover step stores whole discoveries there, the schedule step green
// schema baselines; each key starts with Tool, the running binary's
// identity, so a rebuilt tool never reads an older one's entries.
// --no-cache makes both steps neither read nor write.
package cache
