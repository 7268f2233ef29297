"""The dataset on disk: Parquet shards written by ``misi-gen`` and read by every other tool.

The columns and the row check are declarations (:mod:`misi_tasks.definitions.schema`); this
package gives them files: where shards live (:mod:`~misi_tasks.dataset.layout`) and how they are
written and read (:mod:`~misi_tasks.dataset.parquet`).
"""

from misi_tasks.dataset.layout import dataset_card_configs_yaml, find_shards, list_splits, shard_paths
from misi_tasks.dataset.parquet import ARROW_SCHEMA, ShardWriter, read_items, write_shard
from misi_tasks.definitions.schema import COLUMNS, HF_FEATURES, DatasetError

__all__ = [
    "ARROW_SCHEMA", "COLUMNS", "ShardWriter", "DatasetError", "HF_FEATURES", "dataset_card_configs_yaml", "find_shards",
    "list_splits", "read_items", "shard_paths", "write_shard",
]
