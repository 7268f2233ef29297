"""``misi-export`` and the one prompt builder shared by every exporter and ``misi-run``.

Modules: :mod:`.prompt` (the prompt builder), one module per target format, :mod:`.cli`.
It imports neither numba nor the renderer nor the geometry.
"""

from misi_tasks.export.prompt import Prompt, build_prompt, chat_messages, split_options

__all__ = ["Prompt", "build_prompt", "chat_messages", "split_options"]
