// Temporary files removed when SIGINT or SIGTERM ends the process: an interrupted command leaves
// neither a partial output nor its hidden temporary (docs/architecture.md §8).
#pragma once

#include <string>

namespace pev {

// Creates a unique file from `path_template` (mkstemp's "...XXXXXX", filled in in place, mode
// 0600) registered for removal on a signal: its name is registered before the file exists, so
// no signal finds it unregistered. Returns the open descriptor, or -1 with errno set.
int make_registered_temporary(std::string& path_template);

// Registers a temporary file (already created, or about to be) for removal on a signal.
void register_temporary(const std::string& path);

// Forgets `path` (after it was renamed into place or removed). Unknown paths are ignored.
void unregister_temporary(const std::string& path);

// Registers a directory this process created for its output: on a signal it is removed (rmdir,
// after the temporaries) when empty, so an interrupted command leaves no empty output directory;
// one that holds finished files stays.
void register_created_directory(const std::string& path);
void unregister_created_directory(const std::string& path);

// Registers a scratch directory of this process's own files (flat): on a signal its files are
// removed, then it.
void register_scratch_directory(const std::string& path);
void unregister_scratch_directory(const std::string& path);

// Installs the SIGINT/SIGTERM handler that unlinks every registered temporary and then dies of
// the signal with its default action (so the exit status stays 128 + signal). A program's main
// calls this; a library never does (the Python module must keep Python's KeyboardInterrupt).
void remove_temporaries_on_signal();

}  // namespace pev
