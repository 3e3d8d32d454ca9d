import sys

from ascend_ir_lab.cli import main

sys.exit(main())
