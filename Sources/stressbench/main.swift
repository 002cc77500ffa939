import StressBenchCLI
StressBenchMain.main()
