"""The one prompt builder: what a model sees for a dataset item, in every harness.

``misi-run`` (OpenAI chat requests) and every ``misi-export`` format (VLMEvalKit, lmms-eval,
LLaMA-Factory, JSON lines, OpenAI Batch) build their prompt here, so training and evaluation prompts
match. A prompt is the item's images, in the order the question describes them, followed by the
question text (which already lists the options of a multiple-choice item); an optional system
prompt goes first.

Harnesses that print the options themselves (VLMEvalKit's multiple-choice datasets) get the
question *stem* (the text without the option listing) and one text per option from
:func:`split_options`; an image option is named by its image ("the image labelled option B,
image 9"), never left empty.

Examples
--------
>>> item = {"id": "docking/test/2pyy/000", "question": "Which roll?", "image_roles": ["front"],
...         "options": [], "answer": "roll x 15, move x 3"}
>>> prompt_text(item)
'Which roll?'
>>> sharegpt_user_text(item)
'<image>Which roll?'
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from misi_tasks.definitions.items import LETTERS

__all__ = [
    "IMAGE_TOKEN",
    "Prompt",
    "build_prompt",
    "chat_messages",
    "image_bytes",
    "image_data_url",
    "option_texts",
    "prompt_text",
    "scale_png",
    "sharegpt_user_text",
    "split_options",
]

#: Image placeholder of LLaMA-Factory's sharegpt format (one per image, in order).
IMAGE_TOKEN = "<image>"


@dataclass(frozen=True)
class Prompt:
    """What a model is shown for one item.

    Attributes
    ----------
    id : str
        The item id.
    text : str
        The question text, shown after the images.
    images : tuple of bytes
        PNG images in order (downscaled when asked).
    system : str or None
        Optional system prompt, shown first.
    """

    id: str
    text: str
    images: tuple[bytes, ...]
    system: str | None = None


def prompt_text(item: Mapping[str, Any]) -> str:
    """The question text of an item, exactly as every harness shows it."""
    return item["question"]


def sharegpt_user_text(item: Mapping[str, Any]) -> str:
    """The user turn of LLaMA-Factory's sharegpt format: one ``<image>`` per image, then the text."""
    return IMAGE_TOKEN * len(item["image_roles"]) + prompt_text(item)


def _option_listing(options: Sequence[str]) -> str:
    """The option block the generator put into an MC question (see :meth:`misi_tasks.definitions.items.Item.assign_letter`)."""
    return "\n".join(f"{LETTERS[k]}. {opt}" if opt else f"{LETTERS[k]}. the image labelled option {LETTERS[k]}"
                     for k, opt in enumerate(options))


def option_texts(item: Mapping[str, Any]) -> list[str]:
    """One text per option A–D (empty list for a free-form item).

    A text option is returned as is; an image option (empty option text) is named by its image,
    e.g. ``"the image labelled option B (image 9)"``.
    """
    roles = list(item.get("image_roles") or ())
    out = []
    for k, opt in enumerate(item.get("options") or ()):
        if opt:
            out.append(opt)
            continue
        role = f"option {LETTERS[k]}"
        where = f" (image {roles.index(role) + 1})" if role in roles else ""
        out.append(f"the image labelled option {LETTERS[k]}{where}")
    return out


def split_options(item: Mapping[str, Any]) -> tuple[str, list[str]]:
    """Return ``(stem, options)``: the question without its option listing, and :func:`option_texts`.

    For a free-form item the stem is the whole question and the list is empty. If the listing is
    not found verbatim (a hand-made dataset) the stem is the whole question.
    """
    text = prompt_text(item)
    options = list(item.get("options") or ())
    if not options:
        return text, []
    listing = _option_listing(options)
    stem = text.replace(f" {listing} ", " ", 1) if f" {listing} " in text else text.replace(listing, "", 1)
    return stem.strip(), option_texts(item)


def scale_png(png: bytes, max_px: int | None) -> bytes:
    """Downscale a PNG so that its longer side is at most ``max_px`` (Lanczos); smaller images pass unchanged."""
    if not max_px:
        return png
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        if max(im.size) <= max_px:
            return png
        scale = max_px / max(im.size)
        size = (max(1, round(im.width * scale)), max(1, round(im.height * scale)))
        small = im.convert("RGB").resize(size, Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    small.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def image_bytes(image: Any) -> bytes:
    """PNG bytes of a dataset image: raw bytes, a ``{"bytes", "path"}`` struct or a PIL image."""
    if isinstance(image, Mapping):
        image = image["bytes"]
    if isinstance(image, (bytes, bytearray, memoryview)):
        return bytes(image)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def build_prompt(item: Mapping[str, Any], *, max_image_px: int | None = None, system: str | None = None) -> Prompt:
    """Build the :class:`Prompt` of one dataset item (a row of :func:`misi_tasks.dataset.read_items`)."""
    images = tuple(scale_png(image_bytes(im), max_image_px) for im in item["images"])
    if len(images) != len(item["image_roles"]):
        raise ValueError(f"item {item['id']}: {len(images)} images but {len(item['image_roles'])} image roles")
    return Prompt(id=item["id"], text=prompt_text(item), images=images, system=system or None)


def image_data_url(png: bytes) -> str:
    """``data:image/png;base64,...`` for an OpenAI ``image_url`` part."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def chat_messages(prompt: Prompt) -> list[dict[str, Any]]:
    """OpenAI chat-completions ``messages``: optional system turn, then one user turn with the images
    (as ``image_url`` data URLs, in order) followed by the question text."""
    content: list[dict[str, Any]] = [{"type": "image_url", "image_url": {"url": image_data_url(png)}}
                                     for png in prompt.images]
    content.append({"type": "text", "text": prompt.text})
    messages: list[dict[str, Any]] = []
    if prompt.system:
        messages.append({"role": "system", "content": prompt.system})
    messages.append({"role": "user", "content": content})
    return messages
