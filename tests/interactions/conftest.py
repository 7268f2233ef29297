import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the scene builders (interaction_scenes.py)
