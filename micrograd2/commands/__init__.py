"""The CLI's subcommands, one module each, each defining ``command`` (a click command or group)."""
