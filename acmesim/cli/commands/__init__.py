"""One module per ``acmesim`` subcommand, each exposing ``main(argv) -> int``."""
