CREATE TABLE "departments" (
	"dept_id" serial PRIMARY KEY NOT NULL,
	"parent_id" integer DEFAULT 0 NOT NULL,
	"dept_name" varchar(50) NOT NULL,
	"order_num" integer DEFAULT 0 NOT NULL,
	"leader" varchar(30),
	"phone" varchar(20),
	"status" smallint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "menus" (
	"menu_id" serial PRIMARY KEY NOT NULL,
	"parent_id" integer DEFAULT 0 NOT NULL,
	"type" varchar(1) NOT NULL,
	"code" varchar(100) NOT NULL,
	"perms" varchar(100),
	"path" varchar(200),
	"level" smallint DEFAULT 0 NOT NULL,
	"order_num" integer DEFAULT 0 NOT NULL,
	"status" smallint DEFAULT 0 NOT NULL,
	"title" varchar(50) NOT NULL,
	"icon" varchar(100),
	"hidden" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notices" (
	"notice_id" serial PRIMARY KEY NOT NULL,
	"title" varchar(100) NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"status" smallint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oper_logs" (
	"oper_id" bigserial PRIMARY KEY NOT NULL,
	"title" varchar(50) NOT NULL,
	"business_type" varchar(20) NOT NULL,
	"method" varchar(200) NOT NULL,
	"request_method" varchar(10) NOT NULL,
	"oper_user_id" integer,
	"oper_name" varchar(50),
	"oper_url" varchar(500) NOT NULL,
	"oper_ip" varchar(64),
	"oper_param" text,
	"json_result" text,
	"status" smallint NOT NULL,
	"http_status" integer NOT NULL,
	"error_msg" varchar(500),
	"cost_time" integer NOT NULL,
	"request_id" varchar(64),
	"oper_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "role_menus" (
	"role_id" integer NOT NULL,
	"menu_id" integer NOT NULL,
	CONSTRAINT "role_menus_role_id_menu_id_pk" PRIMARY KEY("role_id","menu_id")
);
--> statement-breakpoint
CREATE TABLE "roles" (
	"role_id" serial PRIMARY KEY NOT NULL,
	"role_name" varchar(30) NOT NULL,
	"role_key" varchar(50) NOT NULL,
	"role_sort" integer DEFAULT 0 NOT NULL,
	"status" smallint DEFAULT 0 NOT NULL,
	"remark" varchar(200),
	"is_admin" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"session_id" varchar(36) PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"refresh_hash" varchar(64) NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"ip" varchar(64),
	"user_agent" varchar(300),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_configs" (
	"field_name" varchar(50) PRIMARY KEY NOT NULL,
	"config_key" varchar(50) NOT NULL,
	"field_value" varchar(500) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_roles" (
	"user_id" integer NOT NULL,
	"role_id" integer NOT NULL,
	CONSTRAINT "user_roles_user_id_role_id_pk" PRIMARY KEY("user_id","role_id")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"user_id" serial PRIMARY KEY NOT NULL,
	"user_name" varchar(20) NOT NULL,
	"password_hash" text NOT NULL,
	"name" varchar(30) NOT NULL,
	"sex" smallint,
	"email" varchar(100),
	"mobile" varchar(20),
	"dept_id" integer,
	"remark" varchar(60),
	"status" smallint DEFAULT 0 NOT NULL,
	"home" varchar(100),
	"set_password_must" boolean DEFAULT false NOT NULL,
	"password_changed_at" timestamp with time zone,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "role_menus" ADD CONSTRAINT "role_menus_role_id_roles_role_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("role_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_menus" ADD CONSTRAINT "role_menus_menu_id_menus_menu_id_fk" FOREIGN KEY ("menu_id") REFERENCES "public"."menus"("menu_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_roles" ADD CONSTRAINT "user_roles_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_roles" ADD CONSTRAINT "user_roles_role_id_roles_role_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("role_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_dept_id_departments_dept_id_fk" FOREIGN KEY ("dept_id") REFERENCES "public"."departments"("dept_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "menus_code" ON "menus" USING btree ("code");--> statement-breakpoint
CREATE INDEX "menus_parent" ON "menus" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "oper_logs_time" ON "oper_logs" USING btree ("oper_time");--> statement-breakpoint
CREATE INDEX "oper_logs_title" ON "oper_logs" USING btree ("title");--> statement-breakpoint
CREATE INDEX "role_menus_menu" ON "role_menus" USING btree ("menu_id");--> statement-breakpoint
CREATE UNIQUE INDEX "roles_role_key" ON "roles" USING btree ("role_key");--> statement-breakpoint
CREATE UNIQUE INDEX "roles_role_name" ON "roles" USING btree ("role_name");--> statement-breakpoint
CREATE INDEX "sessions_user" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_refresh" ON "sessions" USING btree ("refresh_hash");--> statement-breakpoint
CREATE INDEX "user_roles_role" ON "user_roles" USING btree ("role_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_user_name_live" ON "users" USING btree ("user_name") WHERE "users"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "users_dept" ON "users" USING btree ("dept_id");