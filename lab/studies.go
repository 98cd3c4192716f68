package lab

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pglab/pglab/env"
	"github.com/pglab/pglab/study"
	// The studies register themselves with the framework (study.Register).
	_ "github.com/pglab/pglab/study/studies"
)

// StudyNames resolves a --studies value: "all" (or empty) for every study
// whose description says it joins all (study.Info.InAll), else a
// comma-separated list of names.
func StudyNames(list string) ([]string, error) {
	list = strings.TrimSpace(list)
	if list == "" || list == "all" {
		var out []string
		for _, n := range study.Names() {
			st, err := study.Get(n)
			if err != nil {
				return nil, studyError(n, err)
			}
			if st.Info().InAll {
				out = append(out, n)
			}
		}
		return out, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		if _, err := study.Get(n); err != nil {
			return nil, &InputError{Field: FieldStudies, Study: n, Err: fmt.Errorf("{studies}: %w", err)}
		}
		seen[n] = true
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, inputError(FieldStudies, "{studies}: name at least one study")
	}
	return out, nil
}

// Studies returns the studies of names with their parameters from args:
// "study.name=value" for one study, "name=value" for every study of the
// comparison that has that parameter. A parameter no study has, or a study
// not in names, is an error.
func Studies(names []string, args []string, quick bool) ([]StudyRun, error) {
	kv, err := study.ParseParamArgs(args)
	if err != nil {
		return nil, &InputError{Field: FieldStudies, Err: err}
	}
	per := map[string]map[string]string{}
	used := map[string]bool{}
	for _, n := range names {
		per[n] = map[string]string{}
	}
	for key, v := range kv {
		if s, name, ok := strings.Cut(key, "."); ok && !strings.Contains(name, ".") {
			if _, known := per[s]; !known {
				return nil, &InputError{Field: FieldStudies, Study: s, Param: name, Err: fmt.Errorf("{param} %s: study %q is not in this comparison (%s)", key, s, strings.Join(names, ", "))}
			}
			per[s][name] = v
			used[key] = true
		}
	}
	var runs []StudyRun
	for _, n := range names {
		st, err := study.Get(n)
		if err != nil {
			return nil, studyError(n, err)
		}
		info := st.Info()
		for key, v := range kv {
			if strings.Contains(key, ".") {
				continue
			}
			for _, p := range info.Params {
				if p.Name == key {
					if _, set := per[n][key]; !set {
						per[n][key] = v
					}
					used[key] = true
				}
			}
		}
		run, err := planned(st, per[n], quick)
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	var unused []string
	for key := range kv {
		if !used[key] {
			unused = append(unused, key)
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		return nil, &InputError{Field: FieldStudies, Param: unused[0], Err: fmt.Errorf("{param} %s: no study in this comparison has that parameter", unused[0])}
	}
	return runs, nil
}

// OneStudy returns the study name with its parameters from args,
// "name=value" each (pglab study NAME --param …).
func OneStudy(name string, args []string, quick bool) (StudyRun, error) {
	st, err := study.Get(name)
	if err != nil {
		return StudyRun{}, studyError(name, err)
	}
	kv, err := study.ParseParamArgs(args)
	if err != nil {
		return StudyRun{}, &InputError{Field: FieldStudies, Study: name, Err: err}
	}
	return planned(st, kv, quick)
}

// planned checks a study's parameters and what it would do with them.
func planned(st study.Study, kv map[string]string, quick bool) (StudyRun, error) {
	info := st.Info()
	pv, err := study.ParseParams(info.Name, info.Params, kv, quick)
	if err != nil {
		return StudyRun{}, studyError(info.Name, err)
	}
	if _, err := st.Plan(pv); err != nil {
		return StudyRun{}, studyError(info.Name, fmt.Errorf("study %s: %w", info.Name, err))
	}
	return StudyRun{st, pv}, nil
}

// ResolveEnvs reads --env SPECs against the profiles: the built-in ones,
// the user's profiles file and files (--env-file).
func ResolveEnvs(specs, files []string) ([]env.Profile, error) {
	if len(specs) == 0 {
		if len(files) > 0 {
			return nil, inputError(FieldEnvs, "{env-file} without {env}: name the profile to use in {env}")
		}
		return nil, nil
	}
	cat, err := env.LoadCatalog(files...)
	if err != nil {
		return nil, &InputError{Field: FieldEnvs, Err: err}
	}
	var out []env.Profile
	for _, s := range specs {
		p, err := cat.Resolve(s)
		if err != nil {
			return nil, &InputError{Field: FieldEnvs, Err: err}
		}
		out = append(out, p)
	}
	return out, nil
}

// ParamKeys are the --param keys of the studies named (every study when
// names is empty), each with its description after a tab, as a shell's
// completion shows them: "study.name=" when qualified (compare), else
// "name=" (study NAME).
func ParamKeys(names []string, qualified bool) []string {
	if len(names) == 0 {
		names = study.Names()
	}
	var out []string
	for _, n := range names {
		st, err := study.Get(n)
		if err != nil {
			continue
		}
		for _, p := range st.Info().Params {
			key := p.Name + "="
			if qualified {
				key = n + "." + key
			}
			out = append(out, key+"\t"+p.Doc)
		}
	}
	return out
}
