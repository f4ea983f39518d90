/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER grammar until the front end lands. */
%require "3.6"
%define api.pure full
%define api.prefix {cp_yy}
%locations
%define parse.error detailed
%expect 0
%code requires { struct cp_parse_state; }
%parse-param { struct cp_parse_state *st }
%code {
int cp_yylex(CP_YYSTYPE *lval, CP_YYLTYPE *lloc);
static void cp_yyerror(CP_YYLTYPE *l, struct cp_parse_state *st, const char *m);
}
%token END 0 "end of file"
%%
file: %empty ;
%%
static void cp_yyerror(CP_YYLTYPE *l, struct cp_parse_state *st, const char *m)
{
    (void)l; (void)st; (void)m;
}
