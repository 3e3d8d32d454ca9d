"""The timeline payload's names: its format tag and the MIME type notebooks store it under."""

MIME_TYPE = "application/vnd.ascend-ir-lab.timeline+json"
FORMAT = "ascend-ir-lab/timeline@1"
