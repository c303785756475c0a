from enoch.cli import main

raise SystemExit(main())
