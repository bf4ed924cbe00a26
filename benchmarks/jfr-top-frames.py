#!/usr/bin/env python3
# Top frames of a JFR recording of the app (jdk.ExecutionSample on the Tomcat request threads):
# categories (inclusive), self frames, the filters and project frames, self time by package.
# Usage: python3 benchmarks/jfr-top-frames.py app.jfr   (needs `jfr` from the JDK on the PATH)
import json,sys,collections,subprocess
f=sys.argv[1]
d=json.loads(subprocess.check_output(['jfr','print','--json','--stack-depth','200','--events','jdk.ExecutionSample',f]))
ev=d['recording']['events']
selfc=collections.Counter(); incl=collections.Counter(); n=0
cats=collections.Counter()
rules=[('DevTokens','dev.qinglong.app.http.security.DevTokens'),('JWT/oauth2 resource server','org.springframework.security.oauth2'),('nimbus jose','com.nimbusds'),
('Micrometer observation','io.micrometer.observation'),('Micrometer core','io.micrometer.core'),('Jackson','tools.jackson'),('Jackson2','com.fasterxml.jackson'),
('JDBC pgjdbc','org.postgresql'),('Hikari','com.zaxxer'),('Spring Security (all)','org.springframework.security'),('logging','ch.qos.logback'),
('QingLong code (dev.qinglong)','dev.qinglong'),('Tomcat','org.apache.'),('SHA-256/MessageDigest','sun.security.provider.SHA2')]
for e in ev:
  t=e['values'].get('sampledThread',{}) or {}
  name=(t.get('javaName') or t.get('osName') or '')
  if not name.startswith('http-nio'): continue
  fr=e['values']['stackTrace']['frames']
  meths=[(x['method']['type']['name']+'.'+x['method']['name']).replace('/','.') for x in fr]
  n+=1
  if meths: selfc[meths[0]]+=1
  for m in set(meths): incl[m]+=1
  for label,prefix in rules:
    if any(m.startswith(prefix) for m in meths): cats[label]+=1
print('samples on http-nio threads:',n)
print('--- categories (inclusive, % of samples)')
for k,v in cats.most_common(): print(f'{100*v/n:5.1f}% {k}')
print('--- top self frames')
for k,v in selfc.most_common(25): print(f'{100*v/n:5.1f}% {k}')
print('--- top inclusive dev.qinglong / filters')
for k,v in incl.most_common(400):
  if k.startswith('dev.qinglong') or k.startswith('io.micrometer.observation.Observation') or 'Filter' in k: print(f'{100*v/n:5.1f}% {k}')
print('--- self time by package (top frame, first 3 name parts; JDK frames attributed to the nearest non-JDK caller)')
pk=collections.Counter()
for e in ev:
  t=e['values'].get('sampledThread',{}) or {}
  name=(t.get('javaName') or t.get('osName') or '')
  if not name.startswith('http-nio'): continue
  fr=e['values']['stackTrace']['frames']
  meths=[(x['method']['type']['name']+'.'+x['method']['name']).replace('/','.') for x in fr]
  owner='(jdk only)'
  for m in meths:
    if not (m.startswith('java.') or m.startswith('jdk.') or m.startswith('sun.')):
      owner='.'.join(m.split('.')[:3]); 
      if owner.startswith('org.springframework'): owner='.'.join(m.split('.')[:4])
      break
  pk[owner]+=1
for k,v in pk.most_common(15): print(f'{100*v/n:5.1f}% {k}')
