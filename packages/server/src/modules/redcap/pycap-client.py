"""Stock PyCap against our REDCap-compatible API, as a REDCap user's script would use it.

Run by pycap.interop.test.ts with PYTHONPATH at the unmodified PyCap 2.7 (../shared/vendor/pycap) and
REDCAP_URL, REDCAP_TOKEN, REDCAP_RECORD (a patient code with data) in the environment. Every step is run
on its own and reported, as {"ok": value} or {"error": {"type", "message"}}, in one JSON object on stdout.
"""

import io
import json
import os
import sys
import tempfile

import redcap
from redcap import RedcapError

try:
    import pandas as pd
except ImportError:  # pandas is optional for PyCap; the DataFrame steps are left out without it
    pd = None

URL = os.environ["REDCAP_URL"]
TOKEN = os.environ["REDCAP_TOKEN"]
RECORD = os.environ["REDCAP_RECORD"]

results = {"pandas": pd is not None}


def plain(value):
    """A method's answer as JSON can hold it."""
    if pd is not None and isinstance(value, pd.DataFrame):
        return {
            "dataframe": True,
            "shape": list(value.shape),
            "index": list(value.index.names),
            "columns": [str(c) for c in value.columns],
        }
    if isinstance(value, bytes):
        return {"bytes": value.decode("utf-8", errors="replace")}
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    if isinstance(value, (list, dict, str, int, float, bool)) or value is None:
        return value
    return str(value)


def step(name, call):
    try:
        results[name] = {"ok": plain(call())}
    except RedcapError as err:
        detail = err.args[0] if err.args else ""
        results[name] = {"error": {"type": "RedcapError", "message": plain(detail)}}
    except Exception as err:  # pylint: disable=broad-except
        results[name] = {"error": {"type": type(err).__name__, "message": str(err)}}
    return results[name].get("ok")


project = redcap.Project(URL, TOKEN)

step("export_version", project.export_version)
step("export_project_info", project.export_project_info)
metadata = step("export_metadata", project.export_metadata)
step("export_metadata_csv", lambda: project.export_metadata(format_type="csv"))
step("export_metadata_xml", lambda: project.export_metadata(format_type="xml"))
step("export_metadata_fields", lambda: project.export_metadata(fields=["sex"]))
step("export_field_names", project.export_field_names)
step("export_field_names_one", lambda: project.export_field_names(field="sex"))
step("export_instruments", project.export_instruments)
step("def_field", lambda: project.def_field)
step("forms", lambda: sorted(project.forms))
step("is_longitudinal", lambda: project.is_longitudinal)
step("export_events", project.export_events)
step("export_arms", project.export_arms)
step("export_instrument_event_mappings", project.export_instrument_event_mappings)

form_of = {row["field_name"]: row["form_name"] for row in metadata or []}
demographics = form_of.get("sex", "")

step("export_records", project.export_records)
step("export_records_one", lambda: project.export_records(records=[RECORD]))
step("export_records_fields", lambda: project.export_records(records=[RECORD], fields=["sex", "weight"]))
step("export_records_forms", lambda: project.export_records(records=[RECORD], forms=[demographics]))
step("export_records_label", lambda: project.export_records(records=[RECORD], raw_or_label="label"))
step("export_records_csv", lambda: project.export_records(records=[RECORD], format_type="csv"))
step("export_records_xml", lambda: project.export_records(records=[RECORD], format_type="xml"))
step("export_records_eav", lambda: project.export_records(records=[RECORD], record_type="eav"))
step("export_records_filter", lambda: project.export_records(filter_logic="[sex] = '1'", fields=["sex"]))
step("export_records_bad_field", lambda: project.export_records(fields=["no_such_field"]))


def baseline():
    """The record's row of the demographics form, exported as PyCap returns it."""
    rows = project.export_records(records=[RECORD], forms=[demographics])
    return next(r for r in rows if r.get("sex"))


def weight_now():
    return baseline()["weight"]


def import_json():
    row = baseline()
    row["weight"] = "71"
    return {"answer": project.import_records([row]), "weight_after": weight_now()}


def import_csv():
    row = baseline()
    row["weight"] = "72"
    header = list(row.keys())
    buf = io.StringIO()
    buf.write(",".join(header) + "\n")
    buf.write(",".join('"' + str(row[h]).replace('"', '""') + '"' for h in header) + "\n")
    return {"answer": project.import_records(buf.getvalue(), import_format="csv"), "weight_after": weight_now()}


def import_df():
    frame = project.export_records(
        records=[RECORD], forms=[demographics], format_type="df", df_kwargs={"dtype": str, "index_col": "record_id"}
    )
    frame = frame[frame["sex"].notna()].copy()
    frame["weight"] = "73"
    return {"answer": project.import_records(frame, import_format="df"), "weight_after": weight_now()}


def import_return_formats():
    rows = [baseline()]
    return {
        "csv": project.import_records(rows, return_format_type="csv"),
        "xml": project.import_records(rows, return_format_type="xml"),
        "ids": project.import_records(rows, return_content="ids"),
        "nothing": project.import_records(rows, return_content="nothing"),
    }


def import_invalid():
    row = baseline()
    row["sex"] = "9"
    return project.import_records([row])


step("import_records_json", import_json)
step("import_records_csv", import_csv)
if pd is not None:
    step("export_records_df", lambda: project.export_records(format_type="df"))
    step("export_metadata_df", lambda: project.export_metadata(format_type="df"))
    step("export_field_names_df", lambda: project.export_field_names(format_type="df"))
    step("import_records_df", import_df)
step("import_records_return_formats", import_return_formats)
step("import_records_invalid", import_invalid)
step("weight_after_invalid", weight_now)


def import_missing_code():
    """缺失原因: a field sent as one of the study's codes (REDCap's way) is marked with it and exports as the code."""
    answer = project.import_records([{"record_id": RECORD, "height": "ND"}])
    return {"answer": answer, "height_after": baseline()["height"]}


step("import_records_missing_code", import_missing_code)

with tempfile.TemporaryFile() as upload:
    upload.write("化验单 Hb 135 g/L\n".encode("utf-8"))
    upload.seek(0)
    step("import_file", lambda: project.import_file(RECORD, "lab_report", "report.txt", upload))
step("export_file", lambda: project.export_file(RECORD, "lab_report"))
step("delete_file", lambda: project.delete_file(RECORD, "lab_report"))
step("export_file_deleted", lambda: project.export_file(RECORD, "lab_report"))
step("export_file_not_a_file_field", lambda: project.export_file(RECORD, "weight"))

step("export_users", project.export_users)
step("export_pdf", project.export_pdf)
step("delete_records", lambda: project.delete_records([RECORD]))
step("import_metadata", lambda: project.import_metadata(project.export_metadata()))
step("generate_next_record_name", project.generate_next_record_name)

json.dump(results, sys.stdout, ensure_ascii=False)
