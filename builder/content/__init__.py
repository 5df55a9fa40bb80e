"""Reading what authors write: pages, reported figures and predictions."""
