CREATE TABLE "study_figure_changes" (
	"study_id" integer NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "study_figure_changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"figure" smallint NOT NULL,
	"ref" integer NOT NULL,
	"label" text NOT NULL,
	"state" smallint NOT NULL,
	"delta" integer NOT NULL,
	CONSTRAINT "study_figure_changes_study_id_id_pk" PRIMARY KEY("study_id","id")
);
--> statement-breakpoint
CREATE TABLE "study_figures" (
	"study_id" integer NOT NULL,
	"figure" smallint NOT NULL,
	"ref" integer DEFAULT 0 NOT NULL,
	"label" text DEFAULT '' NOT NULL,
	"state" smallint DEFAULT 0 NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "study_figures_study_id_figure_ref_label_state_pk" PRIMARY KEY("study_id","figure","ref","label","state")
);
--> statement-breakpoint
ALTER TABLE "study_figures" ADD CONSTRAINT "study_figures_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "study_figure_changes_study" ON "study_figure_changes" ("study_id");--> statement-breakpoint
-- Appends the deltas a change to a counted table makes (docs/decisions.md "Study home figures as counters").
-- TG_ARGV[0] is the key of a counted row r (study_id, figure, ref, label, state), TG_ARGV[1] says whether r
-- counts. Inserts and deletes are counted per statement from the transition tables (an import's batch appends a
-- few rows, not one per patient); an update is counted per row and only when the trigger's WHEN clause saw a
-- counted column change, so a form save that changes values only does no work here.
CREATE FUNCTION "count_study_figures"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  keyed constant text := TG_ARGV[0];
  counted constant text := TG_ARGV[1];
  deltas text;
BEGIN
  IF TG_LEVEL = 'ROW' THEN
    deltas := format('SELECT %1$s, -1 AS delta FROM (SELECT ($1).*) r WHERE %2$s'
      ' UNION ALL SELECT %1$s, 1 FROM (SELECT ($2).*) r WHERE %2$s', keyed, counted);
  ELSIF TG_OP = 'INSERT' THEN
    deltas := format('SELECT %s, 1 AS delta FROM new_rows r WHERE %s', keyed, counted);
  ELSE
    deltas := format('SELECT %s, -1 AS delta FROM old_rows r WHERE %s', keyed, counted);
  END IF;
  EXECUTE format('INSERT INTO study_figure_changes (study_id, figure, ref, label, state, delta)'
    ' SELECT study_id, figure, ref, label, state, sum(delta)::int FROM (%s) d'
    ' GROUP BY 1, 2, 3, 4, 5 HAVING sum(delta) <> 0', deltas) USING OLD, NEW;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION "study_figure_month"(study integer, at timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT to_char(at AT TIME ZONE (SELECT time_zone FROM studies WHERE study_id = study), 'YYYY-MM')
$$;--> statement-breakpoint
-- 1: casebooks by state.
CREATE TRIGGER "subject_records_figures_insert" AFTER INSERT ON "subject_records" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_study_figures('r.study_id, 1::smallint AS figure, 0 AS ref, '''' AS label, r.state::smallint AS state', 'r.deleted_at IS NULL');--> statement-breakpoint
CREATE TRIGGER "subject_records_figures_delete" AFTER DELETE ON "subject_records" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_study_figures('r.study_id, 1::smallint AS figure, 0 AS ref, '''' AS label, r.state::smallint AS state', 'r.deleted_at IS NULL');--> statement-breakpoint
CREATE TRIGGER "subject_records_figures_update" AFTER UPDATE ON "subject_records" FOR EACH ROW
  WHEN (OLD.state IS DISTINCT FROM NEW.state OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) OR OLD.study_id <> NEW.study_id)
  EXECUTE FUNCTION count_study_figures('r.study_id, 1::smallint AS figure, 0 AS ref, '''' AS label, r.state::smallint AS state', 'r.deleted_at IS NULL');--> statement-breakpoint
-- 2: forms by CRF and state.
CREATE TRIGGER "crf_data_records_figures_insert" AFTER INSERT ON "crf_data_records" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_study_figures('r.study_id, 2::smallint AS figure, r.crf_id AS ref, '''' AS label, r.state::smallint AS state', 'r.deleted_at IS NULL');--> statement-breakpoint
CREATE TRIGGER "crf_data_records_figures_delete" AFTER DELETE ON "crf_data_records" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_study_figures('r.study_id, 2::smallint AS figure, r.crf_id AS ref, '''' AS label, r.state::smallint AS state', 'r.deleted_at IS NULL');--> statement-breakpoint
CREATE TRIGGER "crf_data_records_figures_update" AFTER UPDATE ON "crf_data_records" FOR EACH ROW
  WHEN (OLD.state IS DISTINCT FROM NEW.state OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) OR OLD.crf_id <> NEW.crf_id OR OLD.study_id <> NEW.study_id)
  EXECUTE FUNCTION count_study_figures('r.study_id, 2::smallint AS figure, r.crf_id AS ref, '''' AS label, r.state::smallint AS state', 'r.deleted_at IS NULL');--> statement-breakpoint
-- 3: queries by CRF and state (option_type).
CREATE TRIGGER "doubts_figures_insert" AFTER INSERT ON "doubts" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_study_figures('r.study_id, 3::smallint AS figure, r.crf_id AS ref, '''' AS label, r.option_type AS state', 'true');--> statement-breakpoint
CREATE TRIGGER "doubts_figures_delete" AFTER DELETE ON "doubts" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_study_figures('r.study_id, 3::smallint AS figure, r.crf_id AS ref, '''' AS label, r.option_type AS state', 'true');--> statement-breakpoint
CREATE TRIGGER "doubts_figures_update" AFTER UPDATE ON "doubts" FOR EACH ROW
  WHEN (OLD.option_type <> NEW.option_type OR OLD.crf_id <> NEW.crf_id OR OLD.study_id <> NEW.study_id)
  EXECUTE FUNCTION count_study_figures('r.study_id, 3::smallint AS figure, r.crf_id AS ref, '''' AS label, r.option_type AS state', 'true');--> statement-breakpoint
-- 4: planned visits (custom ones apart) by visit and state.
CREATE TRIGGER "follow_records_figures_insert" AFTER INSERT ON "follow_records" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_study_figures('r.study_id, 4::smallint AS figure, coalesce(r.plan_visit_id, 0) AS ref, r.visit_name::text AS label, r.state::smallint AS state', 'NOT r.custom');--> statement-breakpoint
CREATE TRIGGER "follow_records_figures_delete" AFTER DELETE ON "follow_records" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_study_figures('r.study_id, 4::smallint AS figure, coalesce(r.plan_visit_id, 0) AS ref, r.visit_name::text AS label, r.state::smallint AS state', 'NOT r.custom');--> statement-breakpoint
CREATE TRIGGER "follow_records_figures_update" AFTER UPDATE ON "follow_records" FOR EACH ROW
  WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.custom <> NEW.custom OR OLD.plan_visit_id IS DISTINCT FROM NEW.plan_visit_id OR OLD.visit_name <> NEW.visit_name OR OLD.study_id <> NEW.study_id)
  EXECUTE FUNCTION count_study_figures('r.study_id, 4::smallint AS figure, coalesce(r.plan_visit_id, 0) AS ref, r.visit_name::text AS label, r.state::smallint AS state', 'NOT r.custom');--> statement-breakpoint
-- 5: enrolment by month in the study's zone.
CREATE TRIGGER "subjects_figures_insert" AFTER INSERT ON "subjects" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_study_figures('r.study_id, 5::smallint AS figure, 0 AS ref, study_figure_month(r.study_id, r.created_at) AS label, 0::smallint AS state', 'r.deleted_at IS NULL');--> statement-breakpoint
CREATE TRIGGER "subjects_figures_delete" AFTER DELETE ON "subjects" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION count_study_figures('r.study_id, 5::smallint AS figure, 0 AS ref, study_figure_month(r.study_id, r.created_at) AS label, 0::smallint AS state', 'r.deleted_at IS NULL');--> statement-breakpoint
CREATE TRIGGER "subjects_figures_update" AFTER UPDATE ON "subjects" FOR EACH ROW
  WHEN ((OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) OR OLD.created_at <> NEW.created_at OR OLD.study_id <> NEW.study_id)
  EXECUTE FUNCTION count_study_figures('r.study_id, 5::smallint AS figure, 0 AS ref, study_figure_month(r.study_id, r.created_at) AS label, 0::smallint AS state', 'r.deleted_at IS NULL');--> statement-breakpoint
-- The figures of one study (or of all when study is null) counted again from the rows.
CREATE FUNCTION "recount_study_figures"(study integer, only_figure smallint DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM study_figures WHERE (study IS NULL OR study_id = study) AND (only_figure IS NULL OR figure = only_figure);
  DELETE FROM study_figure_changes WHERE (study IS NULL OR study_id = study) AND (only_figure IS NULL OR figure = only_figure);
  INSERT INTO study_figures (study_id, figure, ref, label, state, count)
  SELECT study_id, figure, ref, label, state, count(*) FROM (
    SELECT study_id, 1::smallint AS figure, 0 AS ref, '' AS label, state::smallint AS state FROM subject_records WHERE deleted_at IS NULL
    UNION ALL SELECT study_id, 2::smallint, crf_id, '', state::smallint FROM crf_data_records WHERE deleted_at IS NULL
    UNION ALL SELECT study_id, 3::smallint, crf_id, '', option_type FROM doubts
    UNION ALL SELECT study_id, 4::smallint, coalesce(plan_visit_id, 0), visit_name::text, state::smallint FROM follow_records WHERE NOT custom
    UNION ALL SELECT study_id, 5::smallint, 0, study_figure_month(study_id, created_at), 0::smallint FROM subjects WHERE deleted_at IS NULL
  ) r
  WHERE (study IS NULL OR study_id = study) AND (only_figure IS NULL OR figure = only_figure)
  GROUP BY 1, 2, 3, 4, 5;
END
$$;--> statement-breakpoint
-- A study's months are counted in its zone: a change of zone counts them again.
CREATE FUNCTION "recount_study_months"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_study_figures(NEW.study_id, 5::smallint);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "studies_figures_zone" AFTER UPDATE OF time_zone ON "studies" FOR EACH ROW
  WHEN (OLD.time_zone IS DISTINCT FROM NEW.time_zone) EXECUTE FUNCTION recount_study_months();--> statement-breakpoint
SELECT recount_study_figures(NULL);
